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

// RedactDB returns s with dbURL's password replaced, for anything a door
// shows of a database's URL.
func RedactDB(dbURL, s string) string { return pgstore.RedactString(dbURL, s) }
