package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/heedhq/heed"
	"github.com/heedhq/heed/internal/pgstore"
	"github.com/heedhq/heed/internal/pgtest"
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
