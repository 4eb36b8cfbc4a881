package pgstore

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/heedhq/heed"
	"github.com/heedhq/heed/internal/history"
	"github.com/heedhq/heed/internal/pgtest"
)

var cluster *pgtest.Cluster

func TestMain(m *testing.M) {
	code := m.Run()
	if cluster != nil {
		cluster.Stop()
	}
	os.Exit(code)
}

var once sync.Once

func database(t *testing.T) string {
	t.Helper()
	once.Do(func() { cluster = pgtest.Start(t) })
	if cluster == nil {
		t.Skip("no PostgreSQL")
	}
	return cluster.Database(t)
}

// databaseAt is a database of its own migrated to version, as an earlier
// heed left it, for a test that migrates it forward.
func databaseAt(t *testing.T, version int) string {
	t.Helper()
	url := database(t)
	Version = version
	_, err := Migrate(context.Background(), url)
	Version = len(migrations)
	if err != nil {
		t.Fatal(err)
	}
	return url
}

// Migrate creates heed's schema and River's; again, it changes nothing;
// two at once are one after the other; a newer schema is refused and
// left as it is.
func TestMigrate(t *testing.T) {
	url := database(t)
	ctx := context.Background()
	res, err := Migrate(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	if res.From != 0 || res.To != Version || len(res.RiverApplied) == 0 {
		t.Fatalf("first migration: %+v", res)
	}
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	for _, table := range []string{"heed_snapshot", "heed_crawl", "heed_frontier", "heed_host", "river_job", "river_leader"} {
		var ok bool
		if err := conn.QueryRow(ctx, "SELECT to_regclass($1) IS NOT NULL", table).Scan(&ok); err != nil || !ok {
			t.Errorf("no table %s after Migrate (%v)", table, err)
		}
	}
	again, err := Migrate(ctx, url)
	if err != nil || again.From != Version || again.To != Version || len(again.RiverApplied) != 0 {
		t.Errorf("second migration: %+v, %v; want nothing done", again, err)
	}

	// Two at once, on a new database: both succeed, one applies it all.
	fresh := database(t)
	var wg sync.WaitGroup
	results := make([]*Result, 2)
	errs := make([]error, 2)
	for i := range 2 {
		wg.Go(func() { results[i], errs[i] = Migrate(ctx, fresh) })
	}
	wg.Wait()
	if errs[0] != nil || errs[1] != nil || results[0].From+results[1].From != Version {
		t.Errorf("two migrations at once: %+v %+v, %v %v", results[0], results[1], errs[0], errs[1])
	}

	// A newer schema is refused, and left as it is.
	if _, err := conn.Exec(ctx, "INSERT INTO heed_schema_version (version) VALUES ($1)", Version+1); err != nil {
		t.Fatal(err)
	}
	_, err = Migrate(ctx, url)
	if !errors.Is(err, ErrNewerSchema) {
		t.Fatalf("a newer schema: %v, want ErrNewerSchema", err)
	}
	var n int
	if err := conn.QueryRow(ctx, "SELECT max(version) FROM heed_schema_version").Scan(&n); err != nil || n != Version+1 {
		t.Errorf("the newer schema was changed: %d, %v", n, err)
	}
}

// No error of Migrate holds the URL's password.
func TestMigrateRedacts(t *testing.T) {
	url := database(t)
	for _, bad := range []string{
		strings.Replace(url, "heed:pw@", "heed:s3cr%2Ft-pw@", 1),            // a wrong password
		strings.Replace(url, "heed:pw@", "heed:s3cr3t-pw@", 1) + "&bogus=1", // an unknown parameter
		"host=127.0.0.1 port=1 user=heed password=s3cr3t-pw dbname=x",       // nothing listening
	} {
		_, err := Migrate(context.Background(), bad)
		if err == nil {
			t.Fatalf("%s: no error", RedactString(bad, bad))
		}
		if msg := err.Error(); strings.Contains(msg, "s3cr") {
			t.Errorf("the password in the error: %s", msg)
		}
	}
}

// A session that holds the migration lock, of a role with no privilege
// at all (any role may take an advisory lock), does not keep Migrate
// waiting beyond its bound: it fails with ErrLocked and names the
// session (its pid, role, application); once the lock is let go, it
// migrates.
func TestMigrateLockHeld(t *testing.T) {
	url := database(t)
	ctx := context.Background()
	admin, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close(ctx)
	if _, err := admin.Exec(ctx, "CREATE ROLE squatter LOGIN PASSWORD 'sq'"); err != nil {
		t.Fatal(err)
	}
	defer admin.Exec(ctx, "DROP ROLE squatter")
	other, err := pgx.Connect(ctx, strings.Replace(url, "heed:pw@", "squatter:sq@", 1)+"&application_name=lock-holder")
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close(ctx)
	var pid int
	if err := other.QueryRow(ctx, "SELECT pg_backend_pid() FROM (SELECT pg_advisory_lock($1)) AS l", int64(lockKey)).Scan(&pid); err != nil {
		t.Fatal(err)
	}
	_, err = MigrateWait(ctx, url, 300*time.Millisecond)
	if !errors.Is(err, ErrLocked) {
		t.Fatalf("the lock held: %v, want ErrLocked", err)
	}
	for _, want := range []string{fmt.Sprintf("pid %d", pid), `role "squatter"`, `application "lock-holder"`, "from 127.0.0.1"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("the error does not name the holder (%s): %v", want, err)
		}
	}
	if _, err := other.Exec(ctx, "SELECT pg_advisory_unlock($1)", int64(lockKey)); err != nil {
		t.Fatal(err)
	}
	if res, err := MigrateWait(ctx, url, 300*time.Millisecond); err != nil || res.To != Version {
		t.Errorf("the lock let go: %+v, %v", res, err)
	}

	// A migration that holds the lock is named as heed's.
	mig, err := connectMigration(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer mig.Close(ctx)
	if err := lock(ctx, mig, time.Second); err != nil {
		t.Fatal(err)
	}
	if _, err = MigrateWait(ctx, url, 300*time.Millisecond); !errors.Is(err, ErrLocked) || !strings.Contains(err.Error(), `role "heed", application "heed migrate"`) {
		t.Errorf("a migration holding the lock: %v", err)
	}
}

// The team's role owns what Migrate makes, though a member of it ran
// the migration as its own role (GRANT heed TO alice): another member
// reads and writes it all the same.
func TestMigrateAsMember(t *testing.T) {
	url := database(t)
	ctx := context.Background()
	admin, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close(ctx)
	for _, stmt := range []string{
		"CREATE ROLE team NOLOGIN", "CREATE ROLE alice LOGIN PASSWORD 'al'", "CREATE ROLE bob LOGIN PASSWORD 'bo'",
		"GRANT team TO alice", "GRANT team TO bob", "CREATE DATABASE teamdb OWNER team",
	} {
		if _, err := admin.Exec(ctx, stmt); err != nil {
			t.Fatal(err)
		}
	}
	cfg := admin.Config()
	as := func(user, pw string) string {
		return fmt.Sprintf("postgres://%s:%s@%s:%d/teamdb?sslmode=disable", user, pw, cfg.Host, cfg.Port)
	}
	if _, err := Migrate(ctx, as("alice", "al")); err != nil {
		t.Fatal(err)
	}
	bob, err := pgx.Connect(ctx, as("bob", "bo"))
	if err != nil {
		t.Fatal(err)
	}
	defer bob.Close(ctx)
	var owners []string
	rows, err := bob.Query(ctx, `SELECT DISTINCT pg_get_userbyid(relowner) FROM pg_class
		WHERE relnamespace = 'public'::regnamespace AND relkind IN ('r', 'S')`)
	if err != nil {
		t.Fatal(err)
	}
	if owners, err = pgx.CollectRows(rows, pgx.RowTo[string]); err != nil {
		t.Fatal(err)
	}
	if len(owners) != 1 || owners[0] != "team" {
		t.Errorf("tables owned by %v; want the database's owner, team", owners)
	}
	st, err := Open(ctx, as("bob", "bo"))
	if err != nil {
		t.Fatalf("another member opens the store: %v", err)
	}
	st.Close()
}

// A wait longer than the server's lock_timeout takes (about 24 days) is
// waited as long as it takes, not refused.
func TestMigrateLongWait(t *testing.T) {
	if _, err := MigrateWait(context.Background(), database(t), 1000*time.Hour); err != nil {
		t.Fatal(err)
	}
}

// A schema on heed's search path where every role may create objects
// (PostgreSQL 14's public, or a GRANT) lets a stranger define functions
// that heed's queries and River's call, as heed's role, by a closer
// match of their arguments (unnest(text[]) over unnest(anyarray)):
// Migrate and Open refuse such a database, and say what to revoke.
func TestRefusePublicCreate(t *testing.T) {
	url := database(t)
	ctx := context.Background()
	if _, err := Migrate(ctx, url); err != nil {
		t.Fatal(err)
	}
	admin, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close(ctx)
	if _, err := admin.Exec(ctx, "GRANT CREATE ON SCHEMA public TO PUBLIC"); err != nil {
		t.Fatal(err)
	}
	const want = "REVOKE CREATE ON SCHEMA public FROM PUBLIC"
	if _, err := Migrate(ctx, url); err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("Migrate: %v; want it refused, saying %q", err, want)
	}
	if st, err := Open(ctx, url); err == nil || !strings.Contains(err.Error(), want) {
		if err == nil {
			st.Close()
		}
		t.Errorf("Open: %v; want it refused, saying %q", err, want)
	}
	if _, err := admin.Exec(ctx, want); err != nil {
		t.Fatal(err)
	}
	st, err := Open(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	st.Close()
}

// A database of version 5 migrated forward: its crawls are records, each
// counted from the frontier as it stands; one seeded with no URL queued
// is done, ended when its last URL did; the others run on.
func TestMigrateCrawlRecords(t *testing.T) {
	url := databaseAt(t, 5)
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, `
		INSERT INTO heed_crawl (id, source, start_url, seeded) VALUES (1, 'a', 'https://a.test/', true), (2, 'b', 'https://b.test/', true), (3, 'c', 'https://c.test/', false);
		INSERT INTO heed_frontier (url, crawl, host, depth, state, reason, updated_at) VALUES
			('https://a.test/', 1, 'a.test', 0, 'done', '', '2026-01-01 10:00:00+00'),
			('https://a.test/u', 1, 'a.test', 1, 'done', 'unchanged', '2026-01-01 10:00:01+00'),
			('https://a.test/r1', 1, 'a.test', 1, 'skipped', 'robots', '2026-01-01 10:00:02+00'),
			('https://a.test/r2', 1, 'a.test', 1, 'skipped', 'robots', '2026-01-01 10:00:03+00'),
			('https://a.test/f', 1, 'a.test', 1, 'failed', 'transient', '2026-01-01 10:00:04+00'),
			('https://b.test/', 2, 'b.test', 0, 'done', '', '2026-01-01 10:00:00+00'),
			('https://b.test/q', 2, 'b.test', 1, 'queued', '', '2026-01-01 10:00:00+00')`); err != nil {
		t.Fatal(err)
	}
	res, err := Migrate(ctx, url)
	if err != nil || res.From != 5 || res.To != Version {
		t.Fatalf("migrated forward: %+v, %v", res, err)
	}
	type record struct {
		state             string
		ended             *time.Time
		stored, unchanged int
		skipped, failed   map[string]int
	}
	got := map[int64]record{}
	rows, err := conn.Query(ctx, `SELECT id, state, ended_at, stored, unchanged, skipped, failed FROM heed_crawl`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var id int64
		var r record
		if err := rows.Scan(&id, &r.state, &r.ended, &r.stored, &r.unchanged, &r.skipped, &r.failed); err != nil {
			t.Fatal(err)
		}
		got[id] = r
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	ended := time.Date(2026, 1, 1, 10, 0, 4, 0, time.UTC)
	if r := got[1]; r.state != "done" || r.ended == nil || !r.ended.Equal(ended) || r.stored != 1 || r.unchanged != 1 ||
		fmt.Sprint(r.skipped) != "map[robots:2]" || fmt.Sprint(r.failed) != "map[transient:1]" {
		t.Errorf("the crawl that ended: %+v", r)
	}
	if r := got[2]; r.state != "running" || r.ended != nil || r.stored != 1 || len(r.skipped) != 0 || len(r.failed) != 0 {
		t.Errorf("the crawl with a URL queued: %+v", r)
	}
	if r := got[3]; r.state != "running" || r.ended != nil || r.stored != 0 {
		t.Errorf("the crawl not seeded: %+v", r)
	}
	if _, err := conn.Exec(ctx, `UPDATE heed_crawl SET state = 'paused' WHERE id = 3`); err == nil {
		t.Error("a crawl took a state heed does not know")
	}
}

// A database of version 9 migrated forward: each snapshot's history
// starts with one entry of its row (found at its fetch, its hash, size
// and validators), its content version 1, not removed; and no row is
// rewritten for it (a snapshot's row keeps its place).
func TestMigrateHistory(t *testing.T) {
	url := databaseAt(t, 9)
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	at := time.Date(2026, 3, 1, 9, 30, 0, 0, time.UTC)
	const md = "# Café\n\nThe menu.\n"
	if _, err := conn.Exec(ctx, `
		INSERT INTO heed_snapshot (url, id, source, fetched_at, hash, etag, last_modified, markdown) VALUES
			('https://a.test/menu', 'a1', 'a', $1, 'h1', '"e1"', 'Sun, 01 Mar 2026 09:00:00 GMT', $2),
			('https://b.test/', 'b1', 'b', $1 + interval '1 hour', 'h2', '', '', '')`, at, md); err != nil {
		t.Fatal(err)
	}
	place := func() map[string]string {
		rows, err := conn.Query(ctx, `SELECT url, ctid::text FROM heed_snapshot`)
		if err != nil {
			t.Fatal(err)
		}
		m := map[string]string{}
		for rows.Next() {
			var u, c string
			if err := rows.Scan(&u, &c); err != nil {
				t.Fatal(err)
			}
			m[u] = c
		}
		return m
	}
	before := place()
	if res, err := Migrate(ctx, url); err != nil || res.From != 9 || res.To != Version {
		t.Fatalf("migrated forward: %+v, %v", res, err)
	}
	if after := place(); fmt.Sprint(after) != fmt.Sprint(before) {
		t.Errorf("rows rewritten: %v, then %v", before, after)
	}
	rows, err := conn.Query(ctx, `
		SELECT h.url, h.n, h.at, h.hash, h.size, h.etag, h.last_modified, h.removed, s.version, s.removed IS NULL
		FROM heed_history h JOIN heed_snapshot s USING (url) ORDER BY h.url, h.n`)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for rows.Next() {
		var u, hash, etag, lm, removed string
		var n, size, version int
		var hat time.Time
		var present bool
		if err := rows.Scan(&u, &n, &hat, &hash, &size, &etag, &lm, &removed, &version, &present); err != nil {
			t.Fatal(err)
		}
		got = append(got, fmt.Sprintf("%s %d %s %s %d %s %q %q v%d %v", u, n, hat.UTC().Format(time.RFC3339), hash, size, etag, lm, removed, version, present))
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	// The migrated entries are dated at the epoch: a row's fetch time is
	// when it was last found as it was, not when its content came.
	want := []string{
		fmt.Sprintf(`https://a.test/menu 1 1970-01-01T00:00:00Z h1 %d "e1" "Sun, 01 Mar 2026 09:00:00 GMT" "" v1 true`, len(md)),
		`https://b.test/ 1 1970-01-01T00:00:00Z h2 0  "" "" v1 true`,
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("history after the migration:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}

	// The store reads it as any history: its first version's text is
	// the row's, kept when a Put replaces it.
	st, err := Open(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	const u = "https://a.test/menu"
	if h, err := st.History(ctx, u); err != nil || len(h.Versions) != 1 || !h.Versions[0].At.Equal(history.Epoch) {
		t.Fatalf("History: %+v, %v", h, err)
	}
	if text, err := st.VersionText(ctx, u, 1); err != nil || text != md {
		t.Errorf("VersionText(1) = %q, %v", text, err)
	}
	if got, err := st.Get(ctx, u); err != nil || got.Version != 1 || !got.Removed.IsZero() {
		t.Errorf("Get: %+v, %v", got, err)
	}
	snap := &heed.Snapshot{Source: "a", URL: u, FetchedAt: at.AddDate(0, 0, 1), Markdown: "# Café\n\nA new menu.\n"}
	if _, err := st.Put(ctx, snap); err != nil || snap.Version != 2 || snap.Change != heed.Changed {
		t.Fatalf("Put: version %d, %q, %v; want 2, changed", snap.Version, snap.Change, err)
	}
	if text, err := st.VersionText(ctx, u, 1); err != nil || text != md {
		t.Errorf("VersionText(1) after a Put = %q, %v", text, err)
	}
}

// A database of version 10 migrated forward: each crawl's options, and
// the seed files it noted as read to their end, are kept beside its row,
// and its row no longer holds them.
func TestMigrateCrawlOptions(t *testing.T) {
	url := databaseAt(t, 10)
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, `
		INSERT INTO heed_crawl (id, source, start_url, options, seed_done) VALUES
			(1, 'a', 'https://a.test/', '{"start":"https://a.test/","allow_hosts":["b.test"]}', '{/llms.txt,https://a.test/sitemap.xml}'),
			(2, 'b', 'https://b.test/', '{"start":"https://b.test/"}', '{}')`); err != nil {
		t.Fatal(err)
	}
	if res, err := Migrate(ctx, url); err != nil || res.From != 10 || res.To != Version {
		t.Fatalf("migrated forward: %+v, %v", res, err)
	}
	rows, err := conn.Query(ctx, `
		SELECT c.id, o.options::text, coalesce((SELECT array_agg(s.url ORDER BY s.url) FROM heed_seed_file s WHERE s.crawl = c.id), '{}')
		FROM heed_crawl c JOIN heed_crawl_options o ON o.crawl = c.id ORDER BY c.id`)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for rows.Next() {
		var id int64
		var options string
		var files []string
		if err := rows.Scan(&id, &options, &files); err != nil {
			t.Fatal(err)
		}
		got = append(got, fmt.Sprintf("%d %s %v", id, options, files))
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	want := []string{
		`1 {"start": "https://a.test/", "allow_hosts": ["b.test"]} [/llms.txt https://a.test/sitemap.xml]`,
		`2 {"start": "https://b.test/"} []`,
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("after the migration:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	var left int
	if err := conn.QueryRow(ctx, `SELECT count(*) FROM information_schema.columns WHERE table_name = 'heed_crawl' AND column_name IN ('options', 'seed_done')`).Scan(&left); err != nil || left != 0 {
		t.Errorf("%d of the columns moved are left in heed_crawl (%v)", left, err)
	}
}

// heed migrate run while a session has a transaction open on a table a
// step alters (a worker's, a request counted and its page not yet
// committed; or any session idle in a transaction) waits for it no
// longer than --lock-wait, as for the migration lock: a step that waited
// without a bound would make every worker's update of heed_crawl wait
// behind it. It fails with ErrLocked, names the session and the table,
// and leaves the schema as it was; the transaction ended, it migrates.
func TestMigrateBesideAnOpenTransaction(t *testing.T) {
	url := databaseAt(t, 10)
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, url+"&application_name=worker")
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, `INSERT INTO heed_crawl (id, source, start_url) VALUES (1, 'a', 'https://a.test/')`); err != nil {
		t.Fatal(err)
	}
	tx, err := conn.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(ctx)
	var pid int
	if err := tx.QueryRow(ctx, `UPDATE heed_crawl SET fetched = fetched + 1 WHERE id = 1 RETURNING pg_backend_pid()`).Scan(&pid); err != nil {
		t.Fatal(err)
	}
	// The test's own bound: a migration that waits without one fails
	// here with the context's error, not ErrLocked.
	mctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	_, err = MigrateWait(mctx, url, 300*time.Millisecond)
	if !errors.Is(err, ErrLocked) {
		t.Fatalf("migrate beside an open transaction on heed_crawl: %v; want ErrLocked", err)
	}
	for _, want := range []string{"version 11", fmt.Sprintf("pid %d", pid), `application "worker"`, "idle in transaction", "on heed_crawl"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("the error does not say %q: %v", want, err)
		}
	}
	var version int
	if err := conn.QueryRow(ctx, `SELECT max(version) FROM heed_schema_version`).Scan(&version); err != nil || version != 10 {
		t.Errorf("the schema after the migration failed: version %d (%v); want 10", version, err)
	}
	if err := tx.Rollback(ctx); err != nil {
		t.Fatal(err)
	}
	if res, err := MigrateWait(mctx, url, 300*time.Millisecond); err != nil || res.From != 10 || res.To != Version {
		t.Errorf("the transaction ended: %+v, %v", res, err)
	}
}
