package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"net"
	"net/http"
	"net/http/httptest"
	neturl "net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/heedhq/heed"
	"github.com/heedhq/heed/internal/pgstore"
	"github.com/heedhq/heed/internal/pgtest"
	"github.com/heedhq/heed/internal/printable"
	"github.com/heedhq/heed/internal/testutil"
	"github.com/jackc/pgx/v5"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// heed migrate --db creates the schemas, then has nothing to do; $HEED_DB
// names the database too; a wrong password fails without showing it.
func TestMigrateCommand(t *testing.T) {
	c := pgtest.Start(t)
	defer c.Stop()
	url := c.Database(t)
	code, out, stderr := run(t, "", "migrate", "--db", url)
	if code != 0 || !strings.Contains(out, fmt.Sprintf("version 0 to %d", pgstore.Version)) {
		t.Fatalf("exit %d, %q, %q", code, out, stderr)
	}
	t.Setenv("HEED_DB", url)
	code, out, stderr = run(t, "", "migrate")
	if code != 0 || !strings.Contains(out, "nothing to do") {
		t.Errorf("again, from HEED_DB: exit %d, %q, %q", code, out, stderr)
	}
	bad := strings.Replace(url, "heed:pw@", "heed:n0t-th3-pw@", 1)
	code, out, stderr = run(t, "", "migrate", "--db", bad)
	if code != 1 || strings.Contains(out+stderr, "n0t-th3") || !strings.Contains(stderr, "heed:") {
		t.Errorf("a wrong password: exit %d, %q, %q", code, out, stderr)
	}
}

// search, show and ls read a team's database with --db (or $HEED_DB):
// what any worker stored, ranked, with snippets.
func TestReadTeamDatabase(t *testing.T) {
	c := pgtest.Start(t)
	defer c.Stop()
	url := c.Database(t)
	if code, _, stderr := run(t, "", "migrate", "--db", url); code != 0 {
		t.Fatal(stderr)
	}
	st, err := pgstore.Open(t.Context(), url)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []heed.Snapshot{
		{Source: "go", URL: "https://go.example/leaks", Title: "Goroutine leaks", Markdown: "# Goroutine leaks\n\nA goroutine that blocks forever leaks."},
		{Source: "pg", URL: "https://pg.example/vacuum", Title: "Vacuum", Markdown: "VACUUM reclaims the storage of dead tuples."},
	} {
		p.FetchedAt = time.Now()
		if _, err := st.Put(t.Context(), &p); err != nil {
			t.Fatal(err)
		}
	}
	st.Close()
	stash := filepath.Join(t.TempDir(), "none") // no stash of files is read, or made
	code, out, stderr := run(t, "", "search", "--stash", stash, "--db", url, "goroutine")
	if code != 0 || !strings.Contains(out, "https://go.example/leaks") || strings.Contains(out, "vacuum") {
		t.Errorf("search: exit %d, %q, %q", code, out, stderr)
	}
	t.Setenv("HEED_DB", url)
	code, out, stderr = run(t, "", "show", "--stash", stash, "https://pg.example/vacuum")
	if code != 0 || !strings.Contains(out, "dead tuples") {
		t.Errorf("show from HEED_DB: exit %d, %q, %q", code, out, stderr)
	}
	code, out, stderr = run(t, "", "ls", "--stash", stash)
	if code != 0 || !strings.Contains(out, "go") || !strings.Contains(out, "pg") {
		t.Errorf("ls: exit %d, %q, %q", code, out, stderr)
	}
	if _, err := os.Stat(stash); !os.IsNotExist(err) {
		t.Errorf("a stash of files was made at %s", stash)
	}
	// heed export writes them out as a stash of files, which reads as any.
	code, out, stderr = run(t, "", "export", "--stash", stash)
	if code != 0 || !strings.Contains(out, "wrote 2 snapshots") {
		t.Fatalf("export: exit %d, %q, %q", code, out, stderr)
	}
	t.Setenv("HEED_DB", "")
	code, out, stderr = run(t, "", "search", "--stash", stash, "tuples")
	if code != 0 || !strings.Contains(out, "https://pg.example/vacuum") {
		t.Errorf("search of the exported stash: exit %d, %q, %q", code, out, stderr)
	}
	if code, out, _ = run(t, "", "export", "--stash", stash, "--db", url); code != 0 || !strings.Contains(out, "wrote 0 snapshots") {
		t.Errorf("export again: exit %d, %q", code, out)
	}
	bad := strings.Replace(url, "heed:pw@", "heed:n0t-th3-pw@", 1)
	code, out, stderr = run(t, "", "search", "--db", bad, "goroutine")
	if code == 0 || strings.Contains(out+stderr, "n0t-th3") {
		t.Errorf("a wrong password: exit %d, %q, %q", code, out, stderr)
	}
}

// The team's commands as a user runs them: heed crawl --db --detach
// queues a crawl, heed status --db shows it waiting; a worker takes it;
// heed crawl --db follows another to its end; heed add --db records a
// website source crawled by the team, heed sync --db --detach queues it
// again. No output, and no error, shows the database's password.
func TestTeamCommands(t *testing.T) {
	c := pgtest.Start(t)
	defer c.Stop()
	admin := c.Database(t)
	const secret = "s3cr3t-Pa55-w0rd"
	conn, err := pgx.Connect(t.Context(), admin)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Exec(t.Context(), "CREATE ROLE team LOGIN SUPERUSER PASSWORD '"+secret+"'"); err != nil {
		t.Fatal(err)
	}
	conn.Close(t.Context())
	db := strings.Replace(admin, "heed:pw@", "team:"+secret+"@", 1)
	config := filepath.Join(t.TempDir(), "config.yaml")
	if err := os.WriteFile(config, nil, 0o644); err != nil { // a file --config names must be there
		t.Fatal(err)
	}
	var seen testutil.Buffer
	teamRun := func(args ...string) (int, string, string) {
		t.Helper()
		code, out, stderr := run(t, "", append(args, "--config", config, "--allow-net", "127.0.0.1/32")...)
		seen.Write([]byte(out + stderr))
		return code, out, stderr
	}
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/robots.txt":
			fmt.Fprint(w, "User-agent: *\nDisallow: /private\n")
		case "/", "/docs/":
			fmt.Fprintf(w, `<html><title>Home %s</title><main><h1>Home</h1><p>Lighthouses guide ships past reefs at night, and this page says so at length.</p><a href="/a">a</a> <a href="/private">p</a></main></html>`, r.URL.Path)
		case "/a":
			fmt.Fprint(w, `<html><title>A</title><main><h1>A</h1><p>A Fresnel lens bends the lamp's light into a narrow beam seen far out at sea.</p></main></html>`)
		default:
			http.NotFound(w, r)
		}
	}))
	defer site.Close()

	if code, _, stderr := teamRun("migrate", "--db", db); code != 0 {
		t.Fatal(stderr)
	}
	code, out, stderr := teamRun("crawl", site.URL+"/", "--db", db, "--detach", "--delay", "10ms")
	if code != 0 || !strings.Contains(out, "crawl 1 queued") {
		t.Fatalf("crawl --detach: exit %d, %q, %q", code, out, stderr)
	}
	// The config file's db, when neither --db nor HEED_DB is given.
	if err := os.WriteFile(config, []byte("db: "+db+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	code, out, stderr = teamRun("status")
	if code != 0 || !strings.Contains(out, "crawl 1 ") || !strings.Contains(out, "running · 0 stored · 0 unchanged · 1 queued") {
		t.Errorf("status before a worker, the database from the config file: exit %d, %q, %q", code, out, stderr)
	}
	// One crawl by its ID, from the team's database.
	code, out, stderr = teamRun("status", "1")
	if code != 0 || !strings.Contains(out, "crawl 1 ") || !strings.Contains(out, "running · 0 stored") {
		t.Errorf("status 1 before a worker: exit %d, %q, %q", code, out, stderr)
	}
	code, _, stderr = teamRun("crawl", site.URL+"/", "--db", db, "--detach", "--max-pages", "0")
	if code != ExitUsage && code != 2 {
		t.Errorf("crawl --db --max-pages 0: exit %d, %q", code, stderr)
	}

	// A worker, until the test stops it as SIGTERM would.
	ctx, stop := context.WithCancel(t.Context())
	var workerOut, workerErr bytes.Buffer
	workerDone := make(chan int, 1)
	go func() {
		workerDone <- Run(ctx, []string{"worker", "--db", db, "--config", config, "--allow-net", "127.0.0.1/32", "--slice", "2s", "--lease", "5s"}, strings.NewReader(""), &workerOut, &workerErr)
	}()
	defer func() {
		stop()
		if code := <-workerDone; code != 0 {
			t.Errorf("worker stopped with exit %d: %s", code, workerErr.String())
		}
		if strings.Contains(workerOut.String()+workerErr.String(), secret) {
			t.Errorf("the worker showed the password: %s", workerErr.String())
		}
	}()

	code, out, stderr = teamRun("crawl", site.URL+"/docs/", "--db", db, "--delay", "10ms", "--include", "/docs/**")
	if code != 0 || !strings.Contains(out, "crawl 2: done · 1 stored") {
		t.Errorf("crawl --db: exit %d, %q, %q", code, out, stderr)
	}
	code, out, stderr = teamRun("crawl", site.URL+"/private", "--db", db, "--delay", "10ms")
	if code != ExitFailed || !strings.Contains(stderr, "kept nothing: the start URL was skipped (robots): disallowed by line 2") {
		t.Errorf("crawl --db of a disallowed start URL: exit %d, %q, %q", code, out, stderr)
	}
	code, out, stderr = teamRun("add", site.URL+"/", "--db", db, "--name", "lights", "--delay", "10ms")
	if code != 0 || !strings.Contains(out, "2 stored") || !strings.Contains(out, `team crawl 4 in`) {
		t.Errorf("add --db: exit %d, %q, %q", code, out, stderr)
	}
	if !strings.Contains(stderr, "crawling all of "+site.URL+"\n") {
		t.Errorf("add --db does not say its crawl's scope: %q", stderr)
	}
	if b, err := os.ReadFile(config); err != nil || !strings.Contains(string(b), "lights:") {
		t.Errorf("add --db did not record the source: %v\n%s", err, b)
	}
	code, out, stderr = teamRun("sync", "lights", "--db", db, "--detach", "--json")
	if code != 0 || !strings.Contains(out, `"event":"queued","source":"lights"`) {
		t.Errorf("sync --db --detach: exit %d, %q, %q", code, out, stderr)
	}
	code, out, stderr = teamRun("search", "--db", db, "narrow beam")
	if code != 0 || !strings.Contains(out, site.URL+"/a") {
		t.Errorf("search --db: exit %d, %q, %q", code, out, stderr)
	}
	var st struct {
		Crawls []struct {
			ID        int64
			State     string
			Done      bool
			Stored    int
			Unchanged int
			Skipped   map[string]int
		}
	}
	for end := time.Now().Add(time.Minute); ; {
		_, out, _ = teamRun("status", "--db", db, "--json")
		if err := json.Unmarshal([]byte(out), &st); err != nil {
			t.Fatalf("status --json: %v: %q", err, out)
		}
		if len(st.Crawls) == 5 && st.Crawls[0].Done && st.Crawls[4].Done || time.Now().After(end) {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	// The last crawl first; the first crawl's URLs were taken up by the
	// add's crawl of the same site, and then by the sync's, which found
	// its pages as the add stored them.
	if len(st.Crawls) != 5 || !st.Crawls[0].Done || st.Crawls[0].State != "done" || st.Crawls[0].Unchanged != 2 || st.Crawls[0].Stored != 0 || st.Crawls[0].Skipped["robots"] != 1 {
		t.Errorf("status --json: %+v", st.Crawls)
	}
	// The first crawl keeps what its URLs came to, though the add's and
	// the sync's crawls took them over since.
	if len(st.Crawls) == 5 && (st.Crawls[4].State != "done" || st.Crawls[4].Stored != 2 || st.Crawls[4].Skipped["robots"] != 1) {
		t.Errorf("status --json of the first crawl: %+v", st.Crawls[4])
	}

	bad := strings.Replace(db, secret, secret+"x", 1)
	for _, args := range [][]string{{"status", "--db", bad}, {"crawl", site.URL + "/", "--db", bad}, {"worker", "--db", bad}} {
		if code, _, _ := teamRun(args...); code == 0 {
			t.Errorf("%s with a wrong password: exit 0", args[0])
		}
	}
	if strings.Contains(seen.String(), secret) {
		t.Errorf("the password was shown:\n%s", seen.String())
	}
}

// TestTeamDoor: what heed rm, show and add say of a team's database
// (--db) is what they say of a stash of files: rm takes the source out of
// the config file too, and removes more than manySnapshots only with
// --yes when it cannot ask; show of a start of two IDs says it is
// ambiguous; add of a URL the guard refuses ends there.
func TestTeamDoor(t *testing.T) {
	c := pgtest.Start(t)
	defer c.Stop()
	db := c.Database(t)
	if code, _, stderr := run(t, "", "migrate", "--db", db); code != 0 {
		t.Fatal(stderr)
	}
	st, err := pgstore.Open(t.Context(), db)
	if err != nil {
		t.Fatal(err)
	}
	base := "https://docs.example/"
	a, b, prefix := sharedPrefix(base, 3)
	n := manySnapshots + 1
	for i := range n {
		u := fmt.Sprintf("%sp%d", base, i)
		if i == 0 {
			u = base + a
		}
		if i == 1 {
			u = base + b
		}
		snap := &heed.Snapshot{Source: "docs", URL: u, Title: "Page", Markdown: "A page of the docs.", FetchedAt: time.Now()}
		if _, err := st.Put(t.Context(), snap); err != nil {
			t.Fatal(err)
		}
	}
	st.Close()
	dir := t.TempDir()
	conf := filepath.Join(dir, "config.yaml")
	os.WriteFile(conf, []byte("sources:\n  docs:\n    url: "+base+"\n    kind: website\n"), 0o644)
	stash := filepath.Join(dir, "none")

	code, out, stderr := run(t, "", "show", prefix, "--db", db, "--config", conf, "--stash", stash)
	if code != ExitUsage || out != "" || !strings.Contains(stderr, "IDs start with "+prefix) {
		t.Errorf("heed show --db of a start of two IDs: exit %d, %q, %q", code, out, stderr)
	}
	code, out, stderr = run(t, "", "rm", "docs", "--db", db, "--config", conf, "--stash", stash)
	if code != ExitUsage || out != "" || !strings.Contains(stderr, "--yes") {
		t.Errorf("heed rm --db of %d snapshots without --yes: exit %d, %q, %q", n, code, out, stderr)
	}
	code, out, stderr = run(t, "", "rm", "docs", "--yes", "--db", db, "--config", conf, "--stash", stash)
	if code != 0 || out != fmt.Sprintf("removed %d snapshots of docs\n", n) || !strings.Contains(stderr, `removed source "docs"`) {
		t.Errorf("heed rm --db --yes: exit %d, %q, %q", code, out, stderr)
	}
	if data, _ := os.ReadFile(conf); strings.Contains(string(data), "docs") {
		t.Errorf("heed rm --db left the source recorded:\n%s", data)
	}
	if _, err := os.Stat(stash); err == nil {
		t.Errorf("heed rm --db made a stash of files")
	}

	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	defer site.Close()
	code, out, stderr = run(t, "", "add", site.URL+"/", "--db", db, "--config", conf, "--stash", stash)
	if code != ExitFailed || !strings.Contains(stderr, "add "+site.URL+"/: refused: 127.0.0.1 is a loopback address") || strings.Contains(stderr, "robots.txt") {
		t.Errorf("heed add --db of loopback without --allow-net: exit %d, %q, %q", code, out, stderr)
	}
}

// A database that cannot be reached is said to be so, without sending
// the user to heed migrate, which could not reach it either; a database
// that is reached but has no heed schema names heed migrate.
func TestTeamDatabaseHint(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := fmt.Sprintf("postgres://heed:pw@%s/heed?sslmode=disable", l.Addr())
	l.Close()
	for _, args := range [][]string{{"search", "goroutine"}, {"ls"}, {"worker"}, {"status"}} {
		code, out, stderr := run(t, "", append(args, "--db", closed)...)
		if code == 0 || strings.Contains(stderr, "migrate") || !strings.Contains(stderr, "cannot connect to the database") {
			t.Errorf("%s, the database unreachable: exit %d, %q, %q", args[0], code, out, stderr)
		}
	}
	c := pgtest.Start(t)
	defer c.Stop()
	url := c.Database(t)
	for _, args := range [][]string{{"search", "goroutine"}, {"worker"}} {
		code, out, stderr := run(t, "", append(args, "--db", url)...)
		if code == 0 || !strings.Contains(stderr, "no heed schema; run heed migrate") {
			t.Errorf("%s, the database not migrated: exit %d, %q, %q", args[0], code, out, stderr)
		}
	}
}

// heed migrate waits at most --lock-wait for a session that holds the
// migration lock (a role with no privilege may hold it), then fails
// naming it: its pid, role and application.
func TestMigrateLockHeld(t *testing.T) {
	c := pgtest.Start(t)
	defer c.Stop()
	url := c.Database(t)
	admin, err := pgx.Connect(t.Context(), url)
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close(context.Background())
	if _, err := admin.Exec(t.Context(), "CREATE ROLE squatter LOGIN PASSWORD 'sq'"); err != nil {
		t.Fatal(err)
	}
	other, err := pgx.Connect(t.Context(), strings.Replace(url, "heed:pw@", "squatter:sq@", 1)+"&application_name=lock-holder")
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close(context.Background())
	var pid int
	if err := other.QueryRow(t.Context(), "SELECT pg_backend_pid() FROM (SELECT pg_advisory_lock(x'68656564'::bigint)) AS l").Scan(&pid); err != nil {
		t.Fatal(err)
	}
	code, out, stderr := run(t, "", "migrate", "--db", url, "--lock-wait", "300ms")
	if code != 1 || !strings.Contains(stderr, "heed's migration lock") || !strings.Contains(stderr, fmt.Sprintf("pid %d, role \"squatter\", application \"lock-holder\"", pid)) {
		t.Errorf("the lock held: exit %d, %q, %q", code, out, stderr)
	}
	other.Close(t.Context())
	if code, out, stderr := run(t, "", "migrate", "--db", url, "--lock-wait", "300ms"); code != 0 {
		t.Errorf("the lock let go: exit %d, %q, %q", code, out, stderr)
	}
}

// A team's search shows the snippets a stash of files shows: what the
// page says in plain text (no link targets, table pipes, escapes or
// emphasis), with the same matches; at both doors, heed search --db and
// heed mcp --db's stash_search, against the team's snapshots exported
// to a stash of files.
func TestTeamSnippetsAsStash(t *testing.T) {
	c := pgtest.Start(t)
	defer c.Stop()
	url := c.Database(t)
	if code, _, stderr := run(t, "", "migrate", "--db", url); code != 0 {
		t.Fatal(stderr)
	}
	st, err := pgstore.Open(t.Context(), url)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []heed.Snapshot{
		{Source: "pg", URL: "https://e.com/vacuum", Title: "Routine", Markdown: "## Routine\n\n**[25.1.1. Vacuuming Basics](https://e.com/vacuum#basics)** and `VACUUM FULL` | x |"},
		{Source: "pg", URL: "https://e.com/window", Title: "Windows", Markdown: "A ***window function*** computes over rows; *see* _below_.\n\n| window | rows |\n|---|---|\n| [frame](https://e.com/frame) | all |"},
		{Source: "pg", URL: "https://e.com/escapes", Title: "Escapes", Markdown: "In snake\\_case, 2 + 3 = 5: \\[brackets\\] and \\<tag\\> stay as written."},
	} {
		p.FetchedAt = time.Now()
		if _, err := st.Put(t.Context(), &p); err != nil {
			t.Fatal(err)
		}
	}
	st.Close()
	stash := filepath.Join(t.TempDir(), "stash")
	if code, _, stderr := run(t, "", "export", "--stash", stash, "--db", url); code != 0 {
		t.Fatal(stderr)
	}
	queries := []string{"vacuuming", "window", "brackets", "frame"}
	snippets := func(args ...string) map[string]string {
		t.Helper()
		got := map[string]string{}
		for _, q := range queries {
			code, out, stderr := run(t, "", append([]string{"search", "--json", q}, args...)...)
			if code != 0 {
				t.Fatalf("search %q %v: exit %d, %s", q, args, code, stderr)
			}
			for line := range strings.Lines(out) {
				var h heed.Hit
				if err := json.Unmarshal([]byte(line), &h); err != nil {
					t.Fatal(err)
				}
				got[q+" "+h.URL] = printable.Marked(h.Snippet, h.Matches, "**", "**")
			}
		}
		return got
	}
	want := snippets("--stash", stash)
	if want["vacuuming https://e.com/vacuum"] != "Routine 25.1.1. **Vacuuming** Basics and **VACUUM** FULL x" || len(want) != len(queries) {
		t.Fatalf("the stash's own snippets are not what its tests say: %q", want)
	}
	got := snippets("--stash", filepath.Join(t.TempDir(), "none"), "--db", url)
	if !maps.Equal(got, want) {
		t.Errorf("heed search --db: snippets\n%q\nwant, as the stash's,\n%q", got, want)
	}

	// MCP marks the matches with **, as the search's JSON gives them.
	ctx, stop := context.WithCancel(t.Context())
	defer stop()
	endpoint, stderr, done := startHTTP(t, ctx, "mcp", "--http", "127.0.0.1:0", "--stash", filepath.Join(t.TempDir(), "none"), "--db", url)
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "test-agent", Version: "0"}, nil).Connect(t.Context(), &sdk.StreamableClientTransport{Endpoint: endpoint}, nil)
	if err != nil {
		t.Fatal(err)
	}
	got = map[string]string{}
	for _, q := range queries {
		res, err := cs.CallTool(t.Context(), &sdk.CallToolParams{Name: "stash_search", Arguments: map[string]any{"query": q}})
		if err != nil || res.IsError {
			t.Fatalf("stash_search %q: %v %+v", q, err, res)
		}
		var out struct {
			Hits []struct{ URL, Snippet string }
		}
		data, _ := json.Marshal(res.StructuredContent)
		if err := json.Unmarshal(data, &out); err != nil {
			t.Fatal(err)
		}
		for _, h := range out.Hits {
			got[q+" "+h.URL] = h.Snippet
		}
	}
	if !maps.Equal(got, want) {
		t.Errorf("stash_search of heed mcp --db: snippets\n%q\nwant, as the stash's,\n%q", got, want)
	}
	cs.Close()
	stop()
	if code := <-done; code != 0 {
		t.Errorf("heed mcp --db exited %d: %s", code, stderr.String())
	}
}

// A page a team's worker rendered reads as the page a crawl on one
// machine rendered: heed show --db prints the frontmatter the stash's
// file holds (via: ["rendered"], rendered: true), as heed show of the
// stash does; only the fetch's time and the file's path differ.
func TestTeamRenderedFrontmatter(t *testing.T) {
	needBrowser(t)
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/app":
			fmt.Fprint(w, `<html><head><title>App</title></head><body><div id="root"></div><script src="/app.js"></script></body></html>`)
		case "/app.js":
			w.Header().Set("Content-Type", "text/javascript")
			fmt.Fprint(w, `fetch("/data.json").then(r => r.json()).then(d => { document.getElementById("root").innerHTML = "<article><h1>" + d.title + "</h1><p>" + d.text + "</p></article>"; });`)
		case "/data.json":
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprint(w, `{"title": "Fresnel lenses", "text": "A Fresnel lens bends the lamp's light into a narrow beam seen far out at sea."}`)
		default:
			http.NotFound(w, r)
		}
	}))
	defer site.Close()
	page := site.URL + "/app"

	one := filepath.Join(t.TempDir(), "one")
	if code, out, stderr := run(t, "", "crawl", page, "--stash", one, "--allow-net", "127.0.0.1/32", "--delay", "10ms"); code != 0 || !strings.Contains(out, "1 stored") {
		t.Fatalf("crawl on one machine: exit %d, %q, %q", code, out, stderr)
	}
	files, _ := filepath.Glob(filepath.Join(one, "*", "*", "app.md"))
	if len(files) != 1 {
		t.Fatalf("the crawl's file: %v", files)
	}
	file, _ := os.ReadFile(files[0])
	if !strings.Contains(string(file), "\nrendered: true\n") {
		t.Fatalf("the crawl on one machine wrote no rendered: true:\n%s", file)
	}

	c := pgtest.Start(t)
	defer c.Stop()
	db := c.Database(t)
	if code, _, stderr := run(t, "", "migrate", "--db", db); code != 0 {
		t.Fatal(stderr)
	}
	ctx, stop := context.WithCancel(t.Context())
	var workerErr bytes.Buffer
	done := make(chan int, 1)
	go func() {
		done <- Run(ctx, []string{"worker", "--db", db, "--allow-net", "127.0.0.1/32", "--slice", "2s", "--lease", "5s"}, strings.NewReader(""), &bytes.Buffer{}, &workerErr)
	}()
	defer func() {
		stop()
		if code := <-done; code != 0 {
			t.Errorf("worker: exit %d, %s", code, workerErr.String())
		}
	}()
	if code, out, stderr := run(t, "", "crawl", page, "--db", db, "--allow-net", "127.0.0.1/32", "--delay", "10ms"); code != 0 || !strings.Contains(out, "1 stored") {
		t.Fatalf("the team's crawl: exit %d, %q, %q", code, out, stderr)
	}
	shown := func(args ...string) string {
		t.Helper()
		code, out, stderr := run(t, "", append([]string{"show", page}, args...)...)
		if code != 0 {
			t.Fatalf("show %v: exit %d, %q", args, code, stderr)
		}
		var keep []string
		for line := range strings.Lines(out) {
			if !strings.HasPrefix(line, "fetched_at: ") && !strings.HasPrefix(line, "path: ") {
				keep = append(keep, line)
			}
		}
		return strings.Join(keep, "")
	}
	team, alone := shown("--db", db, "--stash", filepath.Join(t.TempDir(), "none")), shown("--stash", one)
	if !strings.Contains(team, "\nvia: [\"rendered\"]\nrendered: true\n") || team != alone {
		t.Errorf("heed show --db of the worker's page:\n%s\nwant, as the stash's:\n%s", team, alone)
	}
	front, _, _ := strings.Cut(strings.TrimPrefix(string(file), "---\n"), "---\n")
	for line := range strings.Lines(front) {
		// The file's history is its own record: heed history shows it.
		history := strings.HasPrefix(line, "history:") || strings.HasPrefix(line, "  - ")
		if !strings.HasPrefix(line, "fetched_at: ") && !history && !strings.Contains(team, line) {
			t.Errorf("heed show --db lacks the file's %q:\n%s", line, team)
		}
	}
}

// The steps docs/team.md gives for a team's database, run as written
// against a new cluster, as PostgreSQL's superuser: they make the role
// the page's URL connects as and its database, where heed migrate, a
// worker and a crawl work as that role; and no other role can connect
// (PUBLIC's CONNECT revoked), so none can send the workers notifications
// or hold heed migrate's lock.
func TestTeamSetupAsDocumented(t *testing.T) {
	page, err := os.ReadFile("../../docs/team.md")
	if err != nil {
		t.Fatal(err)
	}
	_, sql, ok := strings.Cut(string(page), "```sql\n")
	sql, _, _ = strings.Cut(sql, "```")
	_, sh, _ := strings.Cut(string(page), "```sh\n")
	_, dbURL, _ := strings.Cut(sh, "export HEED_DB=")
	dbURL, _, _ = strings.Cut(dbURL, "\n")
	if !ok || dbURL == "" {
		t.Fatalf("docs/team.md has no SQL steps and export HEED_DB= line: %q, %q", sql, dbURL)
	}
	c := pgtest.Start(t)
	defer c.Stop()
	// The cluster's first role is named heed: it makes PostgreSQL's
	// usual superuser, postgres, which renames it out of the way.
	addr := strings.TrimPrefix(c.URL, "postgres://heed:pw@")
	addr, _, _ = strings.Cut(addr, "/")
	as := func(user, pw, db string) *pgx.Conn {
		t.Helper()
		conn, err := pgx.Connect(t.Context(), fmt.Sprintf("postgres://%s:%s@%s/%s?sslmode=disable", user, pw, addr, db))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { conn.Close(context.Background()) })
		return conn
	}
	if _, err := as("heed", "pw", "postgres").Exec(t.Context(), "CREATE ROLE postgres SUPERUSER LOGIN PASSWORD 'pg'"); err != nil {
		t.Fatal(err)
	}
	conn := as("postgres", "pg", "postgres")
	if _, err := conn.Exec(t.Context(), "ALTER ROLE heed RENAME TO first"); err != nil {
		t.Fatal(err)
	}
	for line := range strings.Lines(sql) {
		line = strings.TrimSpace(line)
		if stmt, _, _ := strings.Cut(line, "--"); strings.TrimSpace(stmt) != "" {
			line = strings.TrimSpace(stmt)
		} else {
			continue
		}
		if db, ok := strings.CutPrefix(line, `\connect `); ok {
			conn = as("postgres", "pg", db)
			continue
		}
		if _, err := conn.Exec(t.Context(), line); err != nil {
			t.Fatalf("docs/team.md's %q: %v", line, err)
		}
	}
	u, err := neturl.Parse(dbURL)
	if err != nil {
		t.Fatal(err)
	}
	u.Host = addr
	u.RawQuery = "sslmode=disable"
	db := u.String()

	if code, out, stderr := run(t, "", "migrate", "--db", db); code != 0 {
		t.Fatalf("heed migrate as docs/team.md's role: exit %d, %q, %q", code, out, stderr)
	}
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<html><title>Home</title><main><h1>Home</h1><p>Lighthouses guide ships past reefs at night, and this page says so at length.</p></main></html>`)
	}))
	defer site.Close()
	ctx, stop := context.WithCancel(t.Context())
	var workerErr bytes.Buffer
	done := make(chan int, 1)
	go func() {
		done <- Run(ctx, []string{"worker", "--db", db, "--allow-net", "127.0.0.1/32", "--slice", "2s", "--lease", "5s"}, strings.NewReader(""), &bytes.Buffer{}, &workerErr)
	}()
	defer func() {
		stop()
		if code := <-done; code != 0 {
			t.Errorf("worker: exit %d, %s", code, workerErr.String())
		}
	}()
	if code, out, stderr := run(t, "", "crawl", site.URL+"/", "--db", db, "--allow-net", "127.0.0.1/32", "--delay", "10ms"); code != 0 || !strings.Contains(out, "1 stored") {
		t.Fatalf("a team's crawl as docs/team.md's role: exit %d, %q, %q", code, out, stderr)
	}
	if code, out, stderr := run(t, "", "search", "lighthouses", "--db", db, "--stash", filepath.Join(t.TempDir(), "none")); code != 0 || !strings.Contains(out, site.URL) {
		t.Errorf("search as docs/team.md's role: exit %d, %q, %q", code, out, stderr)
	}

	// Another role, of the same cluster, cannot connect to the team's
	// database at all.
	if _, err := conn.Exec(t.Context(), "CREATE ROLE stranger LOGIN PASSWORD 'st'"); err != nil {
		t.Fatal(err)
	}
	other, err := pgx.Connect(t.Context(), fmt.Sprintf("postgres://stranger:st@%s%s?sslmode=disable", addr, u.Path))
	if err == nil {
		other.Close(t.Context())
		t.Errorf("a role docs/team.md's steps did not grant connected to the team's database")
	} else if !strings.Contains(err.Error(), "permission denied") {
		t.Errorf("a stranger's connection: %v, want permission denied", err)
	}
}

// cancelOn is standard error that cancels the command's context once it
// has been sent a line holding what: Ctrl-C at that moment.
type cancelOn struct {
	testutil.Buffer
	what   string
	cancel context.CancelFunc
}

func (c *cancelOn) Write(p []byte) (int, error) {
	n, err := c.Buffer.Write(p)
	if strings.Contains(c.Buffer.String(), c.what) {
		c.cancel()
	}
	return n, err
}

// TestTeamCrawlInterruptedSaysWhereItStands: Ctrl-C while heed crawl
// --db follows a team's crawl prints where the crawl stands, as an
// interrupted crawl here prints what it did, before it says the workers
// go on with it.
func TestTeamCrawlInterruptedSaysWhereItStands(t *testing.T) {
	c := pgtest.Start(t)
	defer c.Stop()
	db := c.Database(t)
	if code, _, stderr := run(t, "", "migrate", "--db", db); code != 0 {
		t.Fatal(stderr)
	}
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	stderr := &cancelOn{what: "crawling ", cancel: cancel}
	var stdout bytes.Buffer
	// No worker runs: the crawl waits, queued, when it is interrupted.
	code := Run(ctx, []string{"crawl", "https://docs.example/guide/", "--db", db, "--config", writeFile(t, "heed.yaml", "")}, strings.NewReader(""), &stdout, stderr)
	if code != 0 || !strings.Contains(stderr.String(), "stopped following crawl 1") {
		t.Fatalf("crawl --db interrupted: exit %d\n%s\n%s", code, stdout.String(), stderr.String())
	}
	if !strings.HasPrefix(stdout.String(), "crawl 1: running · 0 stored · 0 unchanged · 1 queued") {
		t.Errorf("an interrupted crawl --db printed %q, want where the crawl stands", stdout.String())
	}
}
