package team

import (
	"context"
	"encoding/json"

	"github.com/riverqueue/river/riverdriver"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
)

// insertTopic is River's channel for new jobs: a notification on it only
// wakes a worker to look for jobs in the table, sooner than its poll.
const insertTopic = "river_insert"

// driver is River's driver for Postgres with a listener that hears new
// jobs and nothing else. Any role that can connect may NOTIFY any
// channel, without a privilege: River's control channel (cancel job N,
// pause the queue) and leadership channel (resign) would take a
// stranger's orders for the team's own. A worker takes its orders from
// the rows that heed's role writes: River reads pauses and cancellations
// from its tables (as it does when a notification is lost), and its
// leaders are elected in them.
type driver struct{ *riverpgxv5.Driver }

func (d driver) GetListener(params *riverdriver.GetListenenerParams) riverdriver.Listener {
	return &insertListener{Listener: d.Driver.GetListener(params)}
}

// insertListener listens on insertTopic alone; it asks the server for no
// other channel, and lets no notification of another through, nor one of
// it that is not River's word that a job of heed's queue was inserted
// (wanted): any role may send a payload that River cannot parse, and
// River logs an error for each, as fast as a stranger sends them.
type insertListener struct{ riverdriver.Listener }

func (l *insertListener) Listen(ctx context.Context, topic string) error {
	if topic != insertTopic {
		return nil
	}
	return l.Listener.Listen(ctx, topic)
}

func (l *insertListener) Unlisten(ctx context.Context, topic string) error {
	if topic != insertTopic {
		return nil
	}
	return l.Listener.Unlisten(ctx, topic)
}

func (l *insertListener) WaitForNotification(ctx context.Context) (*riverdriver.Notification, error) {
	for {
		n, err := l.Listener.WaitForNotification(ctx)
		if err != nil || n.Topic == insertTopic && wanted(n.Payload) {
			return n, err
		}
	}
}

// wanted reports whether an insert notification's payload is River's
// for heed's queue: {"queue":"heed"}, in a few bytes.
func wanted(payload string) bool {
	if len(payload) > 200 {
		return false
	}
	var p struct {
		Queue string `json:"queue"`
	}
	return json.Unmarshal([]byte(payload), &p) == nil && p.Queue == Queue
}
