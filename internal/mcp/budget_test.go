package mcp

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/heedhq/heed"
	"github.com/heedhq/heed/internal/stash"
)

// sentLog is the server's side of a session, which notes how many
// characters each response it sends takes: the result as the client
// receives it.
type sentLog struct {
	sdk.Transport
	mu   sync.Mutex
	last int
}

type sentConn struct {
	sdk.Connection
	w *sentLog
}

func (w *sentLog) Connect(ctx context.Context) (sdk.Connection, error) {
	c, err := w.Transport.Connect(ctx)
	return &sentConn{c, w}, err
}

func (c *sentConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	if res, ok := msg.(*jsonrpc.Response); ok {
		c.w.mu.Lock()
		c.w.last = utf8.RuneCount(res.Result)
		c.w.mu.Unlock()
	}
	return c.Connection.Write(ctx, msg)
}

// connectSent connects an SDK client to s, as connect does, and returns
// what the server sent.
func connectSent(t *testing.T, s *Server) (*sdk.ClientSession, *sentLog) {
	t.Helper()
	st, ct := sdk.NewInMemoryTransports()
	w := &sentLog{Transport: st}
	ss, err := s.MCP().Connect(t.Context(), w, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "test-agent", Version: "0"}, nil).Connect(t.Context(), ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs, w
}

// sized calls a tool as call does, and fails the test if its result, as
// the server sent it, takes more than budget characters.
func sized(t *testing.T, cs *sdk.ClientSession, w *sentLog, budget int, tool string, args map[string]any, out any) (string, bool) {
	t.Helper()
	text, isErr := call(t, cs, tool, args, out)
	w.mu.Lock()
	got := w.last
	w.mu.Unlock()
	if got > budget || got == 0 {
		t.Errorf("%s %s: a result of %d characters; its budget is %d", tool, cutTo(fmt.Sprint(args), 200), got, budget)
	}
	return text, isErr
}

// hostile is what a page can make long: every character one that JSON
// escapes, or in six characters (HTML's < > &, a control character).
const hostile = `<&>"\` + "\u2028" + `[x](y) `

// hostileSite is a site whose pages make every result as long as they
// can: a title and description of tens of thousands of escaped characters,
// Markdown of long lines, code blocks with long info strings, a redirect
// to a URL of 7,000 characters, and links to a hundred and fifty long
// URLs that robots.txt disallows.
func hostileSite(t *testing.T) *site {
	site := newSite(t)
	site.robots = "User-agent: *\nDisallow: /private/\n"
	title := strings.Repeat(hostile, 2000)
	var body strings.Builder
	fmt.Fprintf(&body, "<html><head><title>%s</title><meta name=\"description\" content=\"%s\"></head><body><main><h1>Tides</h1>", title, strings.Repeat("&lt;&amp;&gt;", 3000))
	for i := range 40 {
		fmt.Fprintf(&body, "<p>Paragraph %d: %s</p>", i, strings.Repeat("a harbour &lt;&amp;&gt; &quot;quoted&quot; \\ ", 30))
		if i%10 == 0 {
			fmt.Fprintf(&body, `<pre><code class="language-%s">%s</code></pre>`, strings.Repeat("x", 300), strings.Repeat("code &lt;&amp;&gt; line\n", 80))
		}
	}
	fmt.Fprintf(&body, "<p>%s</p>", strings.Repeat("harbour&lt;", 2000))
	for i := range 150 {
		fmt.Fprintf(&body, `<p><a href="/private/%d/%s">a closed page</a></p>`, i, strings.Repeat("p&amp;q", 100))
	}
	body.WriteString("</main></body></html>")
	site.set("/", body.String())
	long := "/" + strings.Repeat("long&path", 780)
	site.set(long, body.String())
	site.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/redirect" {
			http.Redirect(w, r, long, http.StatusFound)
			return
		}
		site.serve(w, r)
	})
	return site
}

// bigStash fills s's stash with sources sources of a page each, whose
// titles are long and made of escaped characters, before any tool uses
// it.
func bigStash(t *testing.T, s *Server, sources int) {
	t.Helper()
	st, err := stash.Open(t.Context(), s.svc.StashDir())
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	for i := range sources {
		snap := &heed.Snapshot{
			Source:    fmt.Sprintf("source-%04d-%s", i, strings.Repeat("x", 40)),
			URL:       fmt.Sprintf("https://s%d.example.com/%s", i, strings.Repeat("a&b", 100)),
			Title:     strings.Repeat(hostile, 300),
			FetchedAt: time.Now(),
			Markdown:  "# Harbour\n\nThe harbour " + strings.Repeat("<&> ", 200) + "\n",
		}
		if _, err := st.Put(t.Context(), snap); err != nil {
			t.Fatal(err)
		}
	}
}

// changedStash adds to s's stash n pages changed since a month ago,
// whose titles, URLs and versions are long and made of escaped
// characters and runs of backticks, changed on every line: each a long
// word diff.
func changedStash(t *testing.T, s *Server, n int) {
	t.Helper()
	st, err := stash.Open(t.Context(), s.svc.StashDir())
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	version := func(i, v int) string {
		var b strings.Builder
		fmt.Fprintf(&b, "# Changed %d\n\n", i)
		for line := range 200 {
			fmt.Fprintf(&b, "Line %d of version %d: %s ```` %s\n\n", line, v, strings.Repeat(hostile, 10), strings.Repeat("[-x-]{+y+}", v+1))
		}
		return b.String()
	}
	for i := range n {
		for v, at := range []time.Time{time.Now().AddDate(0, 0, -30), time.Now()} {
			snap := &heed.Snapshot{
				Source:    "changed",
				URL:       fmt.Sprintf("https://changed.example/%d/%s", i, strings.Repeat("a&b", 300)),
				Title:     strings.Repeat(hostile, 300),
				FetchedAt: at,
				Markdown:  version(i, v),
			}
			if _, err := st.Put(t.Context(), snap); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// TestResultsWithinBudget: whatever a page or the stash holds, every
// tool's result, as the client receives it, takes at most its budget
// (max_chars, or the default), its errors too; what was cut comes on
// request, in parts that rejoin to the whole.
func TestResultsWithinBudget(t *testing.T) {
	site := hostileSite(t)
	for _, budget := range []int{MinChars, 7000, 0} {
		t.Run(fmt.Sprint(budget), func(t *testing.T) {
			s := newServer(t, Limits{}, loopback)
			bigStash(t, s, 300)
			changedStash(t, s, 12)
			cs, w := connectSent(t, s)
			max := budget
			if max == 0 {
				max = DefaultChars
			}
			args := func(a map[string]any) map[string]any {
				if budget > 0 {
					a["max_chars"] = budget
				}
				return a
			}

			// web_fetch, part by part, and the parts rejoin.
			var joined strings.Builder
			start, version, parts := 0, "", 0
			for {
				var p FetchOutput
				a := args(map[string]any{"url": site.URL + "/", "start_index": start})
				if version != "" {
					a["version"] = version
				}
				if text, isErr := sized(t, cs, w, max, "web_fetch", a, &p); isErr {
					t.Fatalf("web_fetch from %d: %s", start, text)
				}
				joined.WriteString(strings.TrimSuffix(strings.TrimPrefix(p.Markdown, p.FenceReopen), p.FenceClose))
				version, parts = p.Version, parts+1
				if p.Remaining == 0 {
					if utf8.RuneCountInString(joined.String()) != p.TotalChars {
						t.Errorf("web_fetch: %d parts of %d characters; the page has %d", parts, utf8.RuneCountInString(joined.String()), p.TotalChars)
					}
					break
				}
				if p.Chars == 0 {
					t.Fatalf("web_fetch from %d: an empty part", start)
				}
				start = p.NextStart
			}
			// A redirect to a long URL; an error naming one.
			sized(t, cs, w, max, "web_fetch", args(map[string]any{"url": site.URL + "/redirect"}), nil)
			if _, isErr := sized(t, cs, w, max, "web_fetch", args(map[string]any{"url": site.URL + "/missing/" + strings.Repeat("<&>", 2500)}), nil); !isErr {
				t.Error("web_fetch of a missing page: no error")
			}

			// web_crawl, and its skipped URLs on request, page by page.
			var crawled CrawlOutput
			if text, isErr := sized(t, cs, w, max, "web_crawl", args(map[string]any{"url": site.URL + "/", "max_depth": 1}), &crawled); isErr || crawled.SkippedCursor == "" {
				t.Fatalf("web_crawl: %.300s", text)
			}
			skipped := 0
			for cursor := crawled.SkippedCursor; cursor != ""; {
				var page CrawlOutput
				a := args(map[string]any{"url": site.URL + "/", "cursor": cursor})
				if cursor == crawled.SkippedCursor {
					a["skipped_reason"] = "robots"
				}
				if text, isErr := sized(t, cs, w, max, "web_crawl", a, &page); isErr || len(page.Skips) == 0 {
					t.Fatalf("web_crawl, cursor %s: %.300s", cursor, text)
				}
				skipped, cursor = skipped+len(page.Skips), page.NextCursor
			}
			if skipped != crawled.Skipped["robots"] || skipped != 150 {
				t.Errorf("%d URLs skipped for robots listed; the crawl counted %d", skipped, crawled.Skipped["robots"])
			}

			// web_fetch of the page the crawl stored, which says how it
			// compares with the stash's copy.
			var fetched FetchOutput
			if text, isErr := sized(t, cs, w, max, "web_fetch", args(map[string]any{"url": site.URL + "/"}), &fetched); isErr || fetched.ChangedSince == nil {
				t.Fatalf("web_fetch of a page stored: %.300s", text)
			}

			// crawl_status with the skipped URLs of a reason, crawl_pages
			// page by page, crawl_cancel of a crawl that ended, and
			// web_map of the site.
			if text, isErr := sized(t, cs, w, max, "crawl_status", args(map[string]any{"crawl": crawled.Crawl, "skipped_reason": "robots"}), nil); isErr {
				t.Fatalf("crawl_status: %.300s", text)
			}
			kept := 0
			for cursor, first := "", true; first || cursor != ""; first = false {
				var page PagesOutput
				a := args(map[string]any{"crawl": crawled.Crawl, "limit": 100})
				if cursor != "" {
					a["cursor"] = cursor
				}
				if text, isErr := sized(t, cs, w, max, "crawl_pages", a, &page); isErr {
					t.Fatalf("crawl_pages, cursor %q: %.300s", cursor, text)
				}
				kept, cursor = kept+len(page.Pages), page.Next
			}
			if kept != crawled.Stored+crawled.Unchanged {
				t.Errorf("crawl_pages listed %d pages; the crawl kept %d", kept, crawled.Stored+crawled.Unchanged)
			}
			if _, isErr := sized(t, cs, w, max, "crawl_cancel", args(map[string]any{"crawl": crawled.Crawl}), nil); !isErr {
				t.Error("crawl_cancel of a crawl that ended: no error")
			}
			var mapped MapOutput
			if text, isErr := sized(t, cs, w, max, "web_map", args(map[string]any{"url": site.URL + "/"}), &mapped); isErr {
				t.Fatalf("web_map: %.300s", text)
			}
			for cursor := mapped.NextCursor; cursor != ""; {
				var page MapOutput
				if text, isErr := sized(t, cs, w, max, "web_map", args(map[string]any{"url": site.URL + "/", "cursor": cursor}), &page); isErr || len(page.URLs) == 0 {
					t.Fatalf("web_map, cursor %s: %.300s", cursor, text)
				}
				cursor = page.NextCursor
			}

			// web_grep, and the rest of its matches.
			var grep GrepOutput
			if text, isErr := sized(t, cs, w, max, "web_grep", args(map[string]any{"url": site.URL + "/", "pattern": "harbour"}), &grep); isErr {
				t.Fatalf("web_grep: %.300s", text)
			}
			matches := len(grep.Matches)
			for cursor := grep.NextCursor; cursor != ""; {
				var page GrepOutput
				if text, isErr := sized(t, cs, w, max, "web_grep", args(map[string]any{"url": site.URL + "/", "pattern": "harbour", "cursor": cursor}), &page); isErr || len(page.Matches) == 0 {
					t.Fatalf("web_grep, cursor %s: %.300s", cursor, text)
				}
				matches, cursor = matches+len(page.Matches), page.NextCursor
			}
			if matches != min(grep.MatchCount, MaxMatches) || matches == 0 {
				t.Errorf("web_grep: %d matches listed of %d", matches, grep.MatchCount)
			}

			// stash_read of the page the crawl stored.
			for start := 0; ; {
				var p ReadOutput
				if text, isErr := sized(t, cs, w, max, "stash_read", args(map[string]any{"url_or_id": site.URL + "/", "start_index": start}), &p); isErr {
					t.Fatalf("stash_read from %d: %.300s", start, text)
				}
				if p.Remaining == 0 {
					break
				}
				start = p.NextStart
			}

			// stash_search of the big stash, and the rest of its hits.
			var found SearchOutput
			if text, isErr := sized(t, cs, w, max, "stash_search", args(map[string]any{"query": "harbour", "limit": 50}), &found); isErr {
				t.Fatalf("stash_search: %.300s", text)
			}
			hits := len(found.Hits)
			for cursor := found.NextCursor; cursor != ""; {
				var page SearchOutput
				if text, isErr := sized(t, cs, w, max, "stash_search", args(map[string]any{"query": "harbour", "limit": 50, "cursor": cursor}), &page); isErr || len(page.Hits) == 0 {
					t.Fatalf("stash_search, cursor %s: %.300s", cursor, text)
				}
				hits, cursor = hits+len(page.Hits), page.NextCursor
			}
			if hits != 50 || found.Total != 50 {
				t.Errorf("stash_search: %d hits listed of %d", hits, found.Total)
			}

			// stash_sources, every source in its pages.
			var srcs SourcesOutput
			if text, isErr := sized(t, cs, w, max, "stash_sources", args(map[string]any{}), &srcs); isErr {
				t.Fatalf("stash_sources: %.300s", text)
			}
			names := map[string]bool{}
			for _, src := range srcs.Sources {
				names[src.Name] = true
			}
			for cursor := srcs.NextCursor; cursor != ""; {
				var page SourcesOutput
				if text, isErr := sized(t, cs, w, max, "stash_sources", args(map[string]any{"cursor": cursor}), &page); isErr || len(page.Sources) == 0 {
					t.Fatalf("stash_sources, cursor %s: %.300s", cursor, text)
				}
				for _, src := range page.Sources {
					names[src.Name] = true
				}
				cursor = page.NextCursor
			}
			if len(names) != 302 || srcs.Total != 302 { // and the crawl's, and the pages changed
				t.Errorf("stash_sources: %d sources listed of %d", len(names), srcs.Total)
			}

			// stash_changes with diffs, every page in its pages.
			var changes ChangesOutput
			if text, isErr := sized(t, cs, w, max, "stash_changes", args(map[string]any{"diffs": true}), &changes); isErr {
				t.Fatalf("stash_changes: %.300s", text)
			}
			listed, diffs, cut := len(changes.Pages), 0, 0
			for _, p := range changes.Pages {
				if p.Diff != "" {
					diffs++
				}
			}
			for cursor := changes.NextCursor; cursor != ""; {
				var page ChangesOutput
				if text, isErr := sized(t, cs, w, max, "stash_changes", args(map[string]any{"diffs": true, "cursor": cursor}), &page); isErr || len(page.Pages) == 0 {
					t.Fatalf("stash_changes, cursor %s: %.300s", cursor, text)
				}
				for _, p := range page.Pages {
					if p.Diff != "" {
						diffs++
					}
					if p.DiffCut {
						cut++
					}
				}
				listed, cursor, changes = listed+len(page.Pages), page.NextCursor, page
			}
			if listed != changes.New+changes.Changed || changes.Changed != 12 || diffs != 12 || cut == 0 {
				t.Errorf("stash_changes: %d pages listed, %d with a diff, %d cut; %d new and %d changed", listed, diffs, cut, changes.New, changes.Changed)
			}
		})
	}
}
