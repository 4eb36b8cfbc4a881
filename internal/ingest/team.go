package ingest

import (
	"context"

	"github.com/heedhq/heed/internal/pgstore"
	"github.com/heedhq/heed/internal/stash"
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

// Export writes every snapshot of the team's database at dbURL into the
// stash of files in dir, as a crawl there would have written them (made
// if missing), for people who read or grep them. It returns how many it
// wrote anew; those already there as they are stay.
func Export(ctx context.Context, dbURL, dir string) (int, error) {
	db, err := pgstore.Open(ctx, dbURL)
	if err != nil {
		return 0, err
	}
	defer db.Close()
	st, err := stash.Open(ctx, dir)
	if err != nil {
		return 0, err
	}
	defer st.Close()
	entries, err := db.List(ctx, "")
	if err != nil {
		return 0, err
	}
	n := 0
	for _, e := range entries {
		snap, err := db.Get(ctx, e.URL)
		if err != nil {
			return n, err
		}
		changed, err := st.Put(ctx, snap)
		if err != nil {
			return n, err
		}
		if changed {
			n++
		}
	}
	return n, nil
}
