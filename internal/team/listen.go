package team

import (
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
)

// driver is River's driver for Postgres without LISTEN or NOTIFY: River
// polls its tables instead (every FetchPollInterval for new jobs), and
// sends no notification. Any role that can connect may NOTIFY any
// channel, without a privilege: River's control channel (cancel job N,
// pause the queue), its leadership channel (resign), and its insert
// channel (payloads it logs an error for, as fast as a stranger sends
// them) would take a stranger's word for the team's own. And any role
// may LISTEN and keep a transaction open until the server's notification
// queue is full: then every transaction that sent a notification fails
// at its commit, as a worker's commit of a page that inserts River's jobs
// would. A worker takes its orders from the rows that heed's role
// writes: River reads pauses and cancellations from its tables, and its
// leaders are elected in them.
type driver struct{ *riverpgxv5.Driver }

func newDriver(pool *pgxpool.Pool) driver { return driver{riverpgxv5.New(pool)} }

func (driver) SupportsListener() bool     { return false }
func (driver) SupportsListenNotify() bool { return false }
