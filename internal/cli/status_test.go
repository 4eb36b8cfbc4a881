package cli

import (
	"database/sql"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/heedhq/heed/internal/ledger"
	"github.com/heedhq/heed/internal/stash"
)

// TestStashStatus: heed status lists the stash's crawls with their
// state and counts, and shows one by ID; heed crawl --resume takes up
// only a crawl that may be, and says why not.
func TestStashStatus(t *testing.T) {
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/robots.txt" {
			http.NotFound(w, r)
			return
		}
		fmt.Fprintf(w, `<html><head><title>Page %s</title></head><body><main><p>The page %s, with words enough to be content.</p><a href="/a">a</a> <a href="/b">b</a></main></body></html>`, r.URL.Path, r.URL.Path)
	}))
	t.Cleanup(s.Close)
	stash := t.TempDir()
	flags := []string{"--stash", stash, "--allow-net", "127.0.0.1/32"}
	code, out, stderr := run(t, "", append([]string{"status"}, flags[:2]...)...)
	if code != 2 || !strings.Contains(stderr, "no stash at") {
		t.Errorf("status of no stash: exit %d, %q, %q", code, out, stderr)
	}
	code, out, stderr = run(t, "", append([]string{"crawl", s.URL + "/", "--delay", "0s"}, flags...)...)
	if code != 0 || !strings.HasPrefix(stderr, "heed: crawl 1: crawling ") {
		t.Fatalf("crawl: exit %d, %q, %q", code, out, stderr)
	}
	code, out, stderr = run(t, "", "status", "--stash", stash)
	if code != 0 || !strings.Contains(out, "crawl 1  ") || !strings.Contains(out, s.URL+"/") || !strings.Contains(out, "done · 3 stored · 0 unchanged · 0 failed · 3 requests · 3 new · 0 changed · 0 removed") {
		t.Errorf("status: exit %d, %q, %q", code, out, stderr)
	}
	code, out, stderr = run(t, "", "status", "1", "--json", "--stash", stash)
	var got struct {
		Crawls []struct {
			ID     int64  `json:"id"`
			State  string `json:"state"`
			Start  string `json:"start"`
			Counts struct {
				Stored   int `json:"stored"`
				Requests int `json:"requests"`
			} `json:"counts"`
		} `json:"crawls"`
	}
	if err := json.Unmarshal([]byte(out), &got); code != 0 || err != nil || len(got.Crawls) != 1 || got.Crawls[0].State != "done" || got.Crawls[0].Counts.Stored != 3 || got.Crawls[0].Start != s.URL+"/" {
		t.Errorf("status 1 --json: exit %d, %q, %q, %v", code, out, stderr, err)
	}
	for _, c := range []struct {
		args []string
		code int
		says string
	}{
		{[]string{"status", "9"}, ExitFailed, "crawl 9: no such crawl"},
		{[]string{"status", "nine"}, 2, `"nine" is no crawl ID`},
		{[]string{"crawl", "--resume", "9"}, ExitFailed, "crawl 9: no such crawl"},
		{[]string{"crawl", "--resume", "1"}, 2, "crawl 1 is done"},
		{[]string{"crawl", s.URL + "/", "--resume", "1"}, 2, "give a URL or --resume ID, not both"},
	} {
		code, out, stderr := run(t, "", append(c.args, flags...)...)
		if code != c.code || !strings.Contains(stderr, c.says) {
			t.Errorf("%s: exit %d, %q, %q; want exit %d saying %q", strings.Join(c.args, " "), code, out, stderr, c.code, c.says)
		}
	}
}

// TestStashStatusOfAHostileLedger: what heed status prints of a crawls'
// ledger written by hand (a stash handed over) is made printable: no
// control sequence in a state or a reason reaches the terminal.
func TestStashStatusOfAHostileLedger(t *testing.T) {
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `<html><head><title>Page</title></head><body><main><p>The page, with words enough to be content.</p></main></body></html>`)
	}))
	t.Cleanup(s.Close)
	stash := t.TempDir()
	if code, out, stderr := run(t, "", "crawl", s.URL+"/", "--delay", "0s", "--stash", stash, "--allow-net", "127.0.0.1/32"); code != 0 {
		t.Fatalf("crawl: exit %d, %q, %q", code, out, stderr)
	}
	db, err := sql.Open("sqlite", filepath.Join(stash, ".heed", "crawls.db"))
	if err != nil {
		t.Fatal(err)
	}
	_, err = db.Exec(`UPDATE crawls SET state = 'done' || char(27) || ']0;title' || char(7), counts = '{"skipped":{"robots` + "\\u001b[2J" + `":1}}'`)
	db.Close()
	if err != nil {
		t.Fatal(err)
	}
	code, out, stderr := run(t, "", "status", "--stash", stash)
	if code != 0 || strings.ContainsAny(out, "\x1b\x07") || !strings.Contains(out, "crawl 1  ") {
		t.Errorf("status of a ledger written by hand: exit %d, %q, %q; want it listed, printable", code, out, stderr)
	}
}

// TestStatusOfAnAgentsCrawl: a crawl an agent started says so, and that
// heed mcp takes it up again when it was cut short.
func TestStatusOfAnAgentsCrawl(t *testing.T) {
	dir := t.TempDir()
	st, err := stash.Open(t.Context(), dir)
	if err != nil {
		t.Fatal(err)
	}
	rec, _, err := st.Begin(t.Context(), ledger.Crawl{Key: "k", Start: "https://docs.example/", Source: "docs", By: ledger.ByAgent}, 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Finish(t.Context(), rec.ID, ledger.Interrupted, ledger.Counts{Stored: 2}); err != nil {
		t.Fatal(err)
	}
	st.Close()
	code, out, stderr := run(t, "", "status", "--stash", dir)
	if code != 0 || !strings.Contains(out, "interrupted · 2 stored") || !strings.Contains(out, "started by an agent (heed mcp): heed mcp takes it up again when it starts") || strings.Contains(out, "--resume") {
		t.Errorf("status: exit %d, %q, %q", code, out, stderr)
	}
	code, out, stderr = run(t, "", "status", "1", "--stash", dir)
	if code != 0 || !strings.Contains(out, "started by an agent") {
		t.Errorf("status 1: exit %d, %q, %q", code, out, stderr)
	}

	// One that failed is not taken up by heed mcp (its cause may not have
	// passed): it says how to resume it.
	st, err = stash.Open(t.Context(), dir)
	if err != nil {
		t.Fatal(err)
	}
	failed, _, err := st.Begin(t.Context(), ledger.Crawl{Key: "k2", Start: "https://docs.example/b/", Source: "docs", By: ledger.ByAgent}, 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Finish(t.Context(), failed.ID, ledger.CrawlFailed, ledger.Counts{}); err != nil {
		t.Fatal(err)
	}
	st.Close()
	code, out, stderr = run(t, "", "status", fmt.Sprint(failed.ID), "--stash", dir)
	if code != 0 || !strings.Contains(out, fmt.Sprintf("started by an agent (heed mcp); resume it: heed crawl --resume %d", failed.ID)) || strings.Contains(out, "takes it up again") {
		t.Errorf("status of an agent's crawl that failed: exit %d, %q, %q", code, out, stderr)
	}
}
