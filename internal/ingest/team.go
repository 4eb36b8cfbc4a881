package ingest

import (
	"context"

	"github.com/heedhq/heed/internal/pgstore"
)

// MigrateResult says what Migrate did: heed's schema versions before and
// after, and River's migration versions applied.
type MigrateResult = pgstore.Result

// ErrNewerSchema is wrapped by Migrate's error for a database that a
// newer heed migrated.
var ErrNewerSchema = pgstore.ErrNewerSchema

// Migrate creates or upgrades the schemas of a team's database, heed's
// and River's (pgstore.Migrate). Its errors never hold the URL's
// password.
func Migrate(ctx context.Context, dbURL string) (*MigrateResult, error) {
	return pgstore.Migrate(ctx, dbURL)
}

// OpenDB is a Config.Open for a team's database at dbURL: the service's
// reads and writes go to its rows.
func OpenDB(dbURL string) func(context.Context) (Store, error) {
	return func(ctx context.Context) (Store, error) {
		st, err := pgstore.Open(ctx, dbURL)
		if err != nil {
			return nil, err
		}
		return st, nil
	}
}

var _ Store = (*pgstore.Store)(nil)

// RedactDB returns s with dbURL's password replaced, for anything a door
// shows of a database's URL.
func RedactDB(dbURL, s string) string { return pgstore.RedactString(dbURL, s) }
