package pgstore

import (
	"context"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/heedhq/heed"
)

// TestMigratedPageIsNotNew: a team's database migrated to histories does
// not call every page fetched lately new in heed changes: a page stored a
// year ago and re-fetched unchanged since (a 304, Touch) is not "new since
// last week" right after the upgrade.
func TestMigratedPageIsNotNew(t *testing.T) {
	url := databaseAt(t, 9)
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	const md = "# Menu\n\nThe same menu for a year.\n"
	if _, err := conn.Exec(ctx, `INSERT INTO heed_snapshot (url, id, source, fetched_at, hash, markdown) VALUES ('https://a.test/menu', 'a1', 'a', now() - interval '1 year', $1, $2)`, heed.HashOf(md), md); err != nil {
		t.Fatal(err)
	}
	// Found unchanged yesterday: a 304, as Touch records it.
	if _, err := conn.Exec(ctx, `UPDATE heed_snapshot SET fetched_at = now() - interval '1 day'`); err != nil {
		t.Fatal(err)
	}
	if _, err := Migrate(ctx, url); err != nil {
		t.Fatal(err)
	}
	st, err := Open(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	cs, err := st.Changes(ctx, heed.ChangesQuery{Since: time.Now().AddDate(0, 0, -7)})
	if err != nil {
		t.Fatal(err)
	}
	if len(cs) != 0 {
		t.Errorf("a page unchanged for a year, after the upgrade: changes since a week %+v", cs)
	}
}
