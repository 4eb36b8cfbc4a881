package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/heedhq/heed/internal/pgtest"
)

// TestHistoryDiffChanges crawls a loopback site three times, its pages
// changing, vanishing and coming back between crawls, and checks that
// each crawl's summary, heed history, heed diff and heed changes agree:
// in a stash, and in a team's database crawled by a worker.
func TestHistoryDiffChanges(t *testing.T) {
	t.Run("stash", func(t *testing.T) { historyDiffChanges(t, []string{"--stash", t.TempDir()}) })
	t.Run("team", func(t *testing.T) {
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
		historyDiffChanges(t, []string{"--db", db})
	})
}

// historyDiffChanges is TestHistoryDiffChanges on the store where names
// (--stash DIR, or --db URL).
func historyDiffChanges(t *testing.T, where []string) {
	var mu sync.Mutex
	pages := map[string]string{}
	set := func(p map[string]string) { mu.Lock(); pages = p; mu.Unlock() }
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		body, ok := pages[r.URL.Path]
		mu.Unlock()
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/html")
		w.Write([]byte(body))
	}))
	defer srv.Close()
	page := func(title, text string, links ...string) string {
		var b strings.Builder
		b.WriteString("<html><head><title>" + title + "</title></head><body><main><h1>" + title + "</h1><p>" + text + "</p>")
		for _, l := range links {
			b.WriteString(`<p><a href="` + l + `">` + l + `</a></p>`)
		}
		return b.String() + "</main></body></html>"
	}
	at := func(args ...string) []string { return append(args, where...) }
	crawl := func() (string, string) {
		t.Helper()
		code, out, stderr := run(t, "", at("crawl", srv.URL+"/", "--allow-net", "127.0.0.1/32", "--delay", "0s", "--name", "site")...)
		if code != 0 {
			t.Fatalf("crawl: exit %d: %s", code, stderr)
		}
		return out, stderr
	}
	set(map[string]string{
		"/":      page("Home", "The home page of the site, which says what it holds.", "/tides", "/moon"),
		"/tides": page("Tides", "The harbour's tide tables say the tide turns at noon."),
		"/moon":  page("Moon", "The moon pulls the sea, and the sea follows it."),
	})
	// A crawl's summary, on one machine or a team's.
	told := func(out string, stored, news, changed, unchanged, removed int) bool {
		return strings.Contains(out, fmt.Sprintf("%d stored (%d new, %d changed), %d unchanged", stored, news, changed, unchanged)) &&
			(removed == 0 || strings.Contains(out, fmt.Sprintf(", %d removed,", removed))) ||
			strings.Contains(out, fmt.Sprintf("%d stored · %d unchanged", stored, unchanged)) &&
				(news+changed+removed == 0 || strings.Contains(out, fmt.Sprintf("· %d new · %d changed · %d removed", news, changed, removed)))
	}
	out, _ := crawl()
	if !told(out, 3, 3, 0, 0, 0) {
		t.Fatalf("first crawl's summary: %s", out)
	}
	between := time.Now().UTC()
	time.Sleep(1100 * time.Millisecond) // the stash keeps times to the second
	set(map[string]string{
		"/":      page("Home", "The home page of the site, which says what it holds.", "/tides", "/moon"),
		"/tides": page("Tides", "The harbour's tide tables say the tide turns at dusk."),
	})
	out, _ = crawl()
	if !told(out, 1, 0, 1, 1, 1) {
		t.Fatalf("second crawl's summary: %s", out)
	}

	// heed history: two versions of /tides, with the words changed.
	code, out, stderr := run(t, "", at("history", srv.URL+"/tides", "--json")...)
	if code != 0 {
		t.Fatalf("history: exit %d: %s", code, stderr)
	}
	var h struct {
		Versions []struct {
			N       int  `json:"n"`
			Added   *int `json:"words_added"`
			Deleted *int `json:"words_removed"`
		} `json:"versions"`
	}
	if err := json.Unmarshal([]byte(out), &h); err != nil || len(h.Versions) != 2 || h.Versions[1].Added == nil || *h.Versions[1].Added != 1 || *h.Versions[1].Deleted != 1 {
		t.Fatalf("history: %s (%v)", out, err)
	}
	// heed diff, by line and by word.
	code, out, _ = run(t, "", at("diff", srv.URL+"/tides")...)
	if code != 0 || !strings.Contains(out, "-The harbour's tide tables say the tide turns at noon.") || !strings.Contains(out, "+The harbour's tide tables say the tide turns at dusk.") {
		t.Fatalf("diff: exit %d:\n%s", code, out)
	}
	code, out, _ = run(t, "", at("diff", srv.URL+"/tides", "1", "2", "--words")...)
	if code != 0 || !strings.Contains(out, "[-noon.-]{+dusk.+}") {
		t.Fatalf("diff --words: exit %d:\n%s", code, out)
	}
	if code, _, stderr := run(t, "", at("diff", srv.URL+"/tides", "7")...); code != ExitFailed || !strings.Contains(stderr, "no version 7") {
		t.Fatalf("diff of a version that is not: exit %d, %s", code, stderr)
	}
	// heed changes: one changed, one removed since the first crawl.
	code, out, stderr = run(t, "", at("changes", "--since", between.Format(time.RFC3339Nano))...)
	if code != 0 || !strings.Contains(out, "changed") || !strings.Contains(out, srv.URL+"/tides") || !strings.Contains(out, "removed") || !strings.Contains(out, srv.URL+"/moon") {
		t.Fatalf("changes: exit %d:\n%s%s", code, out, stderr)
	}
	if !strings.Contains(stderr, "0 new, 1 changed, 1 removed") {
		t.Fatalf("changes' counts: %s", stderr)
	}
	// The same as JSON, of the source: a line a page, the counts last.
	code, out, _ = run(t, "", at("changes", "--since", between.Format(time.RFC3339Nano), "--source", "site", "--json")...)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	var changed struct {
		URL    string `json:"url"`
		Change string `json:"change"`
		From   int    `json:"from"`
		To     int    `json:"to"`
	}
	var counts struct{ New, Changed, Removed int }
	if code != 0 || len(lines) != 3 || json.Unmarshal([]byte(lines[1]), &changed) != nil || json.Unmarshal([]byte(lines[2]), &counts) != nil ||
		changed.URL != srv.URL+"/tides" || changed.Change != "changed" || changed.From != 1 || changed.To != 2 || counts != (struct{ New, Changed, Removed int }{0, 1, 1}) {
		t.Fatalf("changes --source site --json: exit %d:\n%s", code, out)
	}
	if code, _, _ := run(t, "", at("changes", "--source", "elsewhere")...); code == 0 {
		t.Fatal("changes of a source the store does not hold: exit 0")
	}
	// heed diff --json: the versions, the words, the diff.
	code, out, _ = run(t, "", at("diff", srv.URL+"/tides", "--json")...)
	var d struct {
		From    int    `json:"from"`
		To      int    `json:"to"`
		Added   int    `json:"words_added"`
		Removed int    `json:"words_removed"`
		Diff    string `json:"diff"`
	}
	if code != 0 || json.Unmarshal([]byte(out), &d) != nil || d.From != 1 || d.To != 2 || d.Added != 1 || d.Removed != 1 || !strings.Contains(d.Diff, "+The harbour's tide tables say the tide turns at dusk.") {
		t.Fatalf("diff --json: exit %d:\n%s", code, out)
	}
	// A removed page is out of search, unless asked for.
	if code, _, _ := run(t, "", at("search", "moon pulls")...); code != ExitFailed {
		t.Fatalf("search found a removed page")
	}
	if code, out, _ := run(t, "", at("search", "moon pulls", "--removed")...); code != 0 || !strings.Contains(out, "/moon") {
		t.Fatalf("search --removed: exit %d, %s", code, out)
	}

	// The page comes back: new again, in search again.
	set(map[string]string{
		"/":      page("Home", "The home page of the site, which says what it holds.", "/tides", "/moon"),
		"/tides": page("Tides", "The harbour's tide tables say the tide turns at dusk."),
		"/moon":  page("Moon", "The moon pulls the sea, and the sea follows it."),
	})
	out, _ = crawl()
	if !told(out, 1, 1, 0, 2, 0) {
		t.Fatalf("third crawl's summary: %s", out)
	}
	code, out, _ = run(t, "", at("history", srv.URL+"/moon")...)
	if code != 0 || !strings.Contains(out, "removed (404)") || strings.Count(out, "\n") != 5 {
		t.Fatalf("history of a page gone and back: exit %d:\n%s", code, out)
	}
	if code, _, stderr := run(t, "", at("changes", "--since", "yesterday")...); code != ExitUsage || !strings.Contains(stderr, "--since") {
		t.Fatalf("changes --since yesterday: exit %d, %s", code, stderr)
	}
}

// TestHistoryRetention: the config's history: versions bounds what a
// page keeps.
func TestHistoryRetention(t *testing.T) {
	var mu sync.Mutex
	body := ""
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		w.Header().Set("Content-Type", "text/html")
		w.Write([]byte(body))
	}))
	defer srv.Close()
	dir := t.TempDir()
	conf := filepath.Join(dir, "config.yaml")
	if err := os.WriteFile(conf, []byte("history:\n  versions: 2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	stash := filepath.Join(dir, "stash")
	for i := range 4 {
		mu.Lock()
		body = fmt.Sprintf("<html><head><title>Tides</title></head><body><main><h1>Tides</h1><p>The tide table of day %d says the tide turns at noon, as it has for years.</p></main></body></html>", i)
		mu.Unlock()
		if code, _, stderr := run(t, "", "crawl", srv.URL+"/", "--stash", stash, "--config", conf, "--allow-net", "127.0.0.1/32", "--delay", "0s", "--name", "site"); code != 0 {
			t.Fatalf("crawl %d: exit %d: %s", i, code, stderr)
		}
	}
	code, out, stderr := run(t, "", "history", srv.URL+"/", "--stash", stash, "--config", conf, "--json")
	if code != 0 {
		t.Fatalf("history: exit %d: %s", code, stderr)
	}
	var h struct {
		Versions []struct {
			N int `json:"n"`
		} `json:"versions"`
	}
	if err := json.Unmarshal([]byte(out), &h); err != nil || len(h.Versions) != 2 || h.Versions[0].N != 3 || h.Versions[1].N != 4 {
		t.Fatalf("history with versions: 2 keeps %s (%v), want versions 3 and 4", out, err)
	}
}
