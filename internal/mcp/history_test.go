package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/heedhq/heed"
	"github.com/heedhq/heed/internal/stash"
	"github.com/heedhq/heed/internal/testutil"
)

// TestWebCrawlSaysWhatChanged: a crawl's result counts the pages new,
// changed and removed beside those stored and unchanged, in its fields
// and its text: a page whose content changed is changed, one that
// answers 404 now is removed, and one never seen is new.
func TestWebCrawlSaysWhatChanged(t *testing.T) {
	site := newSite(t)
	site.set("/", html("Tides", []string{"Tides rise and fall twice a day, pulled by the Moon and the Sun."}, "/spring", "/neap"))
	site.set("/spring", html("Spring tides", []string{"Spring tides come at new and full moon."}))
	site.set("/neap", html("Neap tides", []string{"Neap tides come at the quarter moons."}))
	s := newServer(t, Limits{}, loopback)
	s.progressEvery = 0 // a notification for every page
	var progress progressLog
	cs := connect(t, s, &progress)
	var first CrawlOutput
	if text, isErr := call(t, cs, "web_crawl", map[string]any{"url": site.URL + "/"}, &first); isErr || first.New != 3 || first.Stored != 3 {
		t.Fatalf("first crawl: %s", text)
	}

	site.set("/spring", html("Spring tides", []string{"Spring tides come at new and full moon, and run high."}, "/slack"))
	site.set("/slack", html("Slack water", []string{"Slack water is the still moment between tides."}))
	site.mu.Lock()
	delete(site.pages, "/neap")
	site.mu.Unlock()
	drained(t, cs, &progress, site.URL+"/")
	progress = progressLog{}
	res, err := cs.CallTool(t.Context(), &sdk.CallToolParams{Name: "web_crawl", Arguments: map[string]any{"url": site.URL + "/"}, Meta: sdk.Meta{"progressToken": "again"}})
	if err != nil {
		t.Fatal(err)
	}
	var again CrawlOutput
	text, isErr := decode(t, res, &again)
	if isErr {
		t.Fatal(text)
	}
	// The page gone was asked for: its request is progress, as any page's.
	events := drained(t, cs, &progress, site.URL+"/")
	if len(events) != again.Requests || len(events) != 4 || !strings.Contains(events[len(events)-1].Message, "1 removed") {
		t.Errorf("%d progress notifications for %d requests, want one per page asked for (4), the last counting the page removed", len(events), again.Requests)
		for _, p := range events {
			t.Logf("%+v", p)
		}
	}
	if again.Stored != 2 || again.New != 1 || again.Changed != 1 || again.Unchanged != 1 || again.Removed != 1 || again.Failed != 0 {
		t.Errorf("second crawl: %+v; want 2 stored (1 new, 1 changed), 1 unchanged, 1 removed", again)
	}
	if !strings.Contains(text, "2 stored (1 new, 1 changed), 1 unchanged, 1 removed, 0 failed") {
		t.Errorf("second crawl's text: %s", text)
	}
	// crawl_status says the same.
	var status CrawlOutput
	if text, isErr := call(t, cs, "crawl_status", map[string]any{"crawl": again.Crawl}, &status); isErr || status.New != 1 || status.Changed != 1 || status.Removed != 1 {
		t.Errorf("crawl_status: %s", text)
	}
}

// TestWebFetchChangedSince: web_fetch of a page the stash holds says
// whether it changed since the stash's copy (its version, when it was
// fetched, the words added and removed), in its result and its text, on
// the first part only; of a page the stash does not hold, or with no
// stash at all, it says nothing; and it stores nothing.
func TestWebFetchChangedSince(t *testing.T) {
	site := newSite(t)
	site.set("/", html("Tides", []string{"Tides rise and fall twice a day, pulled by the Moon and the Sun."}, "/spring"))
	site.set("/spring", html("Spring tides", []string{"Spring tides come at new and full moon.", strings.Repeat("Spring tide water runs high and low. ", 40)}))
	site.set("/elsewhere", html("Elsewhere", []string{"A page no crawl reached."}))
	s := newServer(t, Limits{}, loopback)
	cs := connect(t, s, nil)

	// No stash yet: nothing to compare with.
	var f FetchOutput
	text, isErr := call(t, cs, "web_fetch", map[string]any{"url": site.URL + "/spring"}, &f)
	if isErr || f.ChangedSince != nil || strings.Contains(text, "stash's copy") {
		t.Fatalf("web_fetch with no stash: %+v\n%s", f.ChangedSince, text)
	}

	var crawled CrawlOutput
	if text, isErr := call(t, cs, "web_crawl", map[string]any{"url": site.URL + "/"}, &crawled); isErr || crawled.Stored != 2 {
		t.Fatalf("web_crawl: %s", text)
	}
	var stored ReadOutput
	if text, isErr := call(t, cs, "stash_read", map[string]any{"url_or_id": site.URL + "/spring"}, &stored); isErr {
		t.Fatal(text)
	}

	// As the stash holds it: unchanged.
	f = FetchOutput{}
	text, isErr = call(t, cs, "web_fetch", map[string]any{"url": site.URL + "/spring"}, &f)
	c := f.ChangedSince
	if isErr || c == nil || c.Change != "unchanged" || c.ID != stored.ID || c.Version != 1 || !c.FetchedAt.Equal(stored.FetchedAt) || c.Added != 0 || c.Deleted != 0 || !c.Removed.IsZero() {
		t.Fatalf("web_fetch of a page as stored: %+v\n%s", c, text)
	}
	if want := fmt.Sprintf("Since the stash's copy (version 1, id %s, fetched %s): unchanged.\n", stored.ID, stored.FetchedAt.Format(time.RFC3339)); !strings.Contains(text, want) {
		t.Errorf("web_fetch's text lacks %q:\n%.600s", want, text)
	}
	heeds, _ := checkMarkedPlain(t, "web_fetch", text)
	if !strings.Contains(heeds, "Since the stash's copy") {
		t.Errorf("the comparison is not in heed's words:\n%.600s", text)
	}
	// A later part says nothing of it.
	var later FetchOutput
	if text, isErr := call(t, cs, "web_fetch", map[string]any{"url": site.URL + "/spring", "start_index": 10, "version": f.Version}, &later); isErr || later.ChangedSince != nil || strings.Contains(text, "stash's copy") {
		t.Errorf("a later part: %+v\n%s", later.ChangedSince, text)
	}

	// The page changes: four words added ("moon", "at", "moon," and
	// "twice."), and one removed ("moon.").
	site.set("/spring", html("Spring tides", []string{"Spring tides come at new moon and at full moon, twice.", strings.Repeat("Spring tide water runs high and low. ", 40)}))
	f = FetchOutput{}
	text, isErr = call(t, cs, "web_fetch", map[string]any{"url": site.URL + "/spring"}, &f)
	c = f.ChangedSince
	if isErr || c == nil || c.Change != "changed" || c.Version != 1 || c.Added != 4 || c.Deleted != 1 {
		t.Fatalf("web_fetch of a page changed: %+v\n%s", c, text)
	}
	if !strings.Contains(text, "): changed, 4 words added and 1 removed. web_fetch stores nothing") {
		t.Errorf("web_fetch's text of a page changed:\n%.600s", text)
	}
	// Nothing was stored: the stash's copy is as it was.
	var again ReadOutput
	if text, isErr := call(t, cs, "stash_read", map[string]any{"url_or_id": site.URL + "/spring"}, &again); isErr || again.Version != stored.Version {
		t.Errorf("the stash's copy after web_fetch: %s", text)
	}

	// A page the stash does not hold.
	f = FetchOutput{}
	text, isErr = call(t, cs, "web_fetch", map[string]any{"url": site.URL + "/elsewhere"}, &f)
	if isErr || f.ChangedSince != nil || strings.Contains(text, "stash's copy") {
		t.Errorf("web_fetch of a page never stored: %+v\n%s", f.ChangedSince, text)
	}
}

// checkMarkedPlain splits a result's text into heed's words and the
// pages', and fails the test if its markers are not paired.
func checkMarkedPlain(t *testing.T, tool, text string) (heeds string, pages []string) {
	t.Helper()
	_, heeds, pages = splitMarked(t, tool, text)
	return heeds, pages
}

// changer writes pages' versions beside a server, and marks them gone,
// as a crawl of another heed process would between calls.
type changer struct {
	t  *testing.T
	st *stash.Stash
}

func openChanger(t *testing.T, s *Server) *changer {
	t.Helper()
	st, err := stash.Open(context.Background(), s.svc.StashDir())
	if err != nil {
		t.Fatal(err)
	}
	return &changer{t, st}
}

func (c *changer) put(source, url, title, markdown string, at time.Time) {
	c.t.Helper()
	if _, err := c.st.Put(context.Background(), &heed.Snapshot{Source: source, URL: url, Title: title, FetchedAt: at, Markdown: markdown}); err != nil {
		c.t.Fatal(err)
	}
}

func (c *changer) remove(source, url string, at time.Time) {
	c.t.Helper()
	if ok, err := c.st.MarkRemoved(context.Background(), source, url, at, "404"); !ok || err != nil {
		c.t.Fatalf("MarkRemoved %s: %v %v", url, ok, err)
	}
}

func (c *changer) close() {
	if err := c.st.Close(); err != nil {
		c.t.Fatal(err)
	}
}

// tideText is a page's Markdown of many paragraphs, the first saying
// when the tide turns.
func tideText(turns string) string {
	var b strings.Builder
	b.WriteString("# Tides\n\nThe tide turns at " + turns + ".\n\n")
	for i := range 12 {
		fmt.Fprintf(&b, "Paragraph %d of the tide tables, the same in every version.\n\n", i)
	}
	b.WriteString("The harbour closes at " + turns + " too.\n")
	return b.String()
}

// TestStashChanges: stash_changes lists the pages new, changed and
// removed since a time, by URL, and counts them; a changed page with the
// words added and removed, and with diffs its word diff, the lines that
// changed only, marked as the page's words in a block of code; a page
// unchanged since is not listed; one source only, when asked; an unknown
// source, a time that is none, and a cursor of other arguments are
// refused, saying why.
func TestStashChanges(t *testing.T) {
	s := newServer(t, Limits{}, loopback)
	cs := connect(t, s, nil)
	// No stash yet: nothing changed.
	var empty ChangesOutput
	if text, isErr := call(t, cs, "stash_changes", nil, &empty); isErr || len(empty.Pages) != 0 || empty.New+empty.Changed+empty.Removed != 0 || !strings.Contains(text, "Nothing in the stash is new, changed or removed") {
		t.Fatalf("stash_changes with no stash: %s", text)
	}

	month := time.Now().AddDate(0, 0, -30)
	now := time.Now()
	w := openChanger(t, s)
	w.put("tides", "https://tides.example/changed", "Changed <b>tides</b>", tideText("noon"), month)
	w.put("tides", "https://tides.example/changed", "Changed <b>tides</b>", tideText("dusk"), now)
	w.put("tides", "https://tides.example/gone", "Gone", "# Gone\n\nSoon gone.\n", month)
	w.remove("tides", "https://tides.example/gone", now)
	w.put("tides", "https://tides.example/new", "New", "# New\n\nA new page.\n", now)
	w.put("tides", "https://tides.example/same", "Same", "# Same\n\nAs it was.\n", month)
	w.put("harbour", "https://harbour.example/new", "Harbour", "# Harbour\n\nA new page of another source.\n", now)
	w.close()

	var out ChangesOutput
	text, isErr := call(t, cs, "stash_changes", nil, &out)
	if isErr {
		t.Fatal(text)
	}
	var got []string
	for _, p := range out.Pages {
		got = append(got, p.Change+" "+p.URL)
	}
	want := []string{"new https://harbour.example/new", "changed https://tides.example/changed", "removed https://tides.example/gone", "new https://tides.example/new"}
	if !slices.Equal(got, want) || out.New != 2 || out.Changed != 1 || out.Removed != 1 || out.Partial || out.NextCursor != "" {
		t.Fatalf("stash_changes: %v, counts %d %d %d; want %v\n%s", got, out.New, out.Changed, out.Removed, want, text)
	}
	if d := time.Since(out.Since) - 7*24*time.Hour; d < 0 || d > time.Minute {
		t.Errorf("since %v; want a week back", out.Since)
	}
	ch := out.Pages[1]
	if ch.From != 1 || ch.To != 2 || ch.Added == nil || *ch.Added != 2 || *ch.Deleted != 2 || ch.Diff != "" || ch.ID != heed.IDOf(ch.URL) || ch.Title != "Changed <b>tides</b>" || ch.Source != "tides" {
		t.Errorf("the changed page: %+v", ch)
	}
	if gone := out.Pages[2]; gone.From != 1 || gone.To != 2 || gone.Added != nil {
		t.Errorf("the removed page: %+v", gone)
	}
	if nw := out.Pages[3]; nw.From != 0 || nw.To != 1 || nw.Added != nil {
		t.Errorf("the new page: %+v", nw)
	}
	for _, line := range []string{
		"2 new, 1 changed, 1 removed.",
		"- changed: https://tides.example/changed (version 1 to 2, ",
		"): 2 words added, 2 removed\n",
		"- removed: https://tides.example/gone (found gone ",
		"- new: https://tides.example/new (version 1, ",
		"heed://snapshot/{id}/history",
	} {
		if !strings.Contains(text, line) {
			t.Errorf("stash_changes' text lacks %q:\n%s", line, text)
		}
	}
	_, heeds, pages := splitMarked(t, "stash_changes", text)
	if len(pages) != 4 || pages[1] != ` Changed \<b>tides\</b> ` || strings.Contains(heeds, "tides</b>") {
		t.Errorf("the titles are not marked as the pages' words: %q", pages)
	}

	// With diffs: the changed page's lines that changed, in a block of
	// code marked as the page's words.
	var diffs ChangesOutput
	text, isErr = call(t, cs, "stash_changes", map[string]any{"diffs": true, "source": "tides"}, &diffs)
	if isErr || len(diffs.Pages) != 3 || diffs.New != 1 {
		t.Fatalf("stash_changes with diffs in source tides: %s", text)
	}
	d := diffs.Pages[0].Diff
	if want := "…\nThe tide turns at [-noon.-]{+dusk.+}\n…\nThe harbour closes at [-noon-]{+dusk+} too.\n"; d != want || diffs.Pages[0].DiffCut {
		t.Errorf("diff %q; want %q", d, want)
	}
	_, _, pages = splitMarked(t, "stash_changes", text)
	if !slices.Contains(pages, "\n\n```\n"+d+"```\n\n") {
		t.Errorf("the diff is not a block of code marked as the page's words: %q", pages)
	}

	// Since a time: a date, or nothing since now.
	var none ChangesOutput
	if text, isErr := call(t, cs, "stash_changes", map[string]any{"since": "0d"}, &none); isErr || len(none.Pages) != 0 || !strings.Contains(text, "Nothing in the stash is new, changed or removed") {
		t.Errorf("since 0d: %s", text)
	}
	var all ChangesOutput
	if text, isErr := call(t, cs, "stash_changes", map[string]any{"since": month.AddDate(0, 0, -1).Format(time.DateOnly)}, &all); isErr || all.New != 4 || all.Changed != 0 || all.Removed != 0 {
		// Every page is new since before its first version; the one gone
		// since was new and is gone, and so is nothing.
		t.Errorf("since before every page: %+v\n%s", all, text)
	}

	for _, tt := range []struct {
		args map[string]any
		want string
	}{
		{map[string]any{"source": "nowhere"}, `no source "nowhere" in the stash: stash_sources lists the sources`},
		{map[string]any{"since": "yesterday"}, `since: "yesterday" is no time`},
		{map[string]any{"since": strings.Repeat("9", 5000)}, "is no time"},
		{map[string]any{"cursor": "not-a-cursor"}, "is not one heed gave"},
		{map[string]any{"diffs": "yes"}, "diffs"},
	} {
		if text, isErr := call(t, cs, "stash_changes", tt.args, nil); !isErr || !strings.Contains(text, tt.want) || len(text) > 1000 {
			t.Errorf("stash_changes %.80v: %v %.300q; want an error saying %q", tt.args, isErr, text, tt.want)
		}
	}
}

// TestStashChangesPaged: a stash with more changed pages than a result
// holds, or than heed reads at once, lists them page by page with
// next_cursor, each once, by URL, and counts them all by the last; the
// time asked about is the first call's throughout; a cursor of other
// arguments is refused.
func TestStashChangesPaged(t *testing.T) {
	s := newServer(t, Limits{}, loopback)
	s.changesPart = 7
	cs := connect(t, s, nil)
	month := time.Now().AddDate(0, 0, -30)
	now := time.Now()
	w := openChanger(t, s)
	var want []string
	for i := range 30 {
		u := fmt.Sprintf("https://tides.example/%02d", i)
		want = append(want, u)
		switch i % 3 {
		case 0: // new
			w.put("tides", u, "Page "+u, tideText("noon"), now)
		case 1: // changed
			w.put("tides", u, "Page "+u, tideText("noon"), month)
			w.put("tides", u, "Page "+u, tideText("dusk"), now)
		case 2: // removed
			w.put("tides", u, "Page "+u, tideText("noon"), month)
			w.remove("tides", u, now)
		}
	}
	w.close()

	var listed []string
	args := map[string]any{"since": "7d", "diffs": true, "max_chars": MinChars}
	var first ChangesOutput
	text, isErr := call(t, cs, "stash_changes", args, &first)
	if isErr || !first.Partial || first.NextCursor == "" || first.New+first.Changed+first.Removed != 7 {
		t.Fatalf("the first part: partial %v, counts %d %d %d, cursor %q\n%s", first.Partial, first.New, first.Changed, first.Removed, first.NextCursor, text)
	}
	if !strings.Contains(text, "among the pages read so far") {
		t.Errorf("a partial count is not said to be:\n%s", text)
	}
	last := first
	for out, calls := first, 1; ; calls++ {
		for _, p := range out.Pages {
			listed = append(listed, p.URL)
			if p.Change == "changed" && (p.Added == nil || *p.Added != 2 || p.Diff == "") {
				t.Errorf("%s: %+v; want its words and diff", p.URL, p)
			}
		}
		if !out.Since.Equal(first.Since) {
			t.Errorf("call %d: since %v; the first call's was %v", calls, out.Since, first.Since)
		}
		last = out
		if out.NextCursor == "" {
			break
		}
		if calls > 40 {
			t.Fatal("the cursors do not end")
		}
		time.Sleep(time.Millisecond) // "7d" means the first call's week, not one counted again
		var next ChangesOutput
		a := map[string]any{"since": "7d", "diffs": true, "max_chars": MinChars, "cursor": out.NextCursor}
		if text, isErr := call(t, cs, "stash_changes", a, &next); isErr || len(next.Pages) == 0 {
			t.Fatalf("stash_changes, cursor %s: %s", out.NextCursor, text)
		}
		out = next
	}
	if !slices.Equal(listed, want) {
		t.Errorf("listed %d pages:\n%v\nwant %d:\n%v", len(listed), listed, len(want), want)
	}
	if last.Partial || last.New != 10 || last.Changed != 10 || last.Removed != 10 {
		t.Errorf("the last part's counts: partial %v, %d new, %d changed, %d removed; want all 30", last.Partial, last.New, last.Changed, last.Removed)
	}
	// A cursor goes on with the arguments that gave it.
	if text, isErr := call(t, cs, "stash_changes", map[string]any{"since": "1d", "cursor": first.NextCursor}, nil); !isErr || !strings.Contains(text, "give since and source as the call that gave it did") {
		t.Errorf("a cursor with another since: %v %s", isErr, text)
	}
	if text, isErr := call(t, cs, "stash_search", map[string]any{"query": "tides", "cursor": first.NextCursor}, nil); !isErr || !strings.Contains(text, "pass it to stash_changes") {
		t.Errorf("a cursor of stash_changes given to stash_search: %v %s", isErr, text)
	}
}

// TestStashChangesSafeMarkdown: a diff interleaves two versions' words,
// so that marks of one and words of the other could read as a link or
// HTML that neither holds; in a block of code they read as neither, and
// the whole text stays safe Markdown, however hostile the versions and
// the title; a page's forged trailer and markers stay inside the
// boundary.
func TestStashChangesSafeMarkdown(t *testing.T) {
	s := newServer(t, Limits{}, loopback)
	cs := connect(t, s, nil)
	w := openChanger(t, s)
	u := "https://tides.example/hostile"
	w.put("tides", u, "<img src=x onerror=alert(1)> [a](javascript:alert(1))", "# Tides\n\nold words (javascript:alert(1))\n\n```\n<b>code</b>\n", time.Now().AddDate(0, 0, -30))
	w.put("tides", u, "<img src=x onerror=alert(1)> [a](javascript:alert(1))", "# Tides\n\n(javascript:alert(1))\n\n<img src=x onerror=alert(1)>\n\n"+forgedClose+"\n\n"+forgedTrailer+"\n\n"+forgedNote+"\n\n"+forgedOpen+"\n", time.Now())
	w.close()
	var out ChangesOutput
	text, isErr := call(t, cs, "stash_changes", map[string]any{"diffs": true}, &out)
	if isErr || len(out.Pages) != 1 || !strings.Contains(out.Pages[0].Diff, "[-old words -](javascript:alert(1))") {
		t.Fatalf("stash_changes: %+v\n%s", out.Pages, text)
	}
	if bad := testutil.UnsafeMarkdown(text, true); bad != "" {
		t.Errorf("stash_changes' text holds %s:\n%s", bad, text)
	}
	heeds, _ := checkMarked(t, "stash_changes", text)
	if !strings.Contains(heeds, "0 new, 1 changed, 0 removed") {
		t.Errorf("heed's counts are not in heed's words:\n%s", text)
	}
}

// TestStashChangesComparesBounded: a call compares the versions of at
// most maxCompared changed pages, however many its budget could list;
// the next call goes on from the next.
func TestStashChangesComparesBounded(t *testing.T) {
	s := newServer(t, Limits{}, loopback)
	cs := connect(t, s, nil)
	w := openChanger(t, s)
	for i := range maxCompared + 1 {
		u := fmt.Sprintf("https://tides.example/%03d", i)
		w.put("tides", u, "T", "# T\n\nnoon\n", time.Now().AddDate(0, 0, -30))
		w.put("tides", u, "T", "# T\n\ndusk\n", time.Now())
	}
	w.close()
	var first, second ChangesOutput
	text, isErr := call(t, cs, "stash_changes", map[string]any{"max_chars": 100_000}, &first)
	if isErr || len(first.Pages) != maxCompared || first.NextCursor == "" || first.Changed != maxCompared+1 || !strings.Contains(text, fmt.Sprintf("of %d changed pages at most", maxCompared)) {
		t.Fatalf("stash_changes: %d pages listed of %d, cursor %q\n%.2000s", len(first.Pages), first.Changed, first.NextCursor, text)
	}
	if text, isErr := call(t, cs, "stash_changes", map[string]any{"max_chars": 100_000, "cursor": first.NextCursor}, &second); isErr || len(second.Pages) != 1 || second.Pages[0].URL != fmt.Sprintf("https://tides.example/%03d", maxCompared) || second.NextCursor != "" {
		t.Errorf("the rest: %s", text)
	}
}

// TestResourceVersions: a page's versions are resources:
// heed://snapshot/{id}/history lists them as JSON, each with the URI of
// its Markdown (a removal without one), and
// heed://snapshot/{id}/versions/{n} is version n's Markdown whole, as the
// stash keeps it; a version not kept, a removal, a page not held and
// hostile URIs are refused with errors saying why; neither may be
// subscribed to.
func TestResourceVersions(t *testing.T) {
	s := newServer(t, Limits{}, loopback)
	cs := connectWith(t, s, nil, legacy)
	tides, gone := "https://tides.example/changed", "https://tides.example/gone"
	id, goneID := heed.IDOf(tides), heed.IDOf(gone)
	// No stash yet: no page.
	_, err := cs.ReadResource(t.Context(), &sdk.ReadResourceParams{URI: "heed://snapshot/" + id + "/history"})
	if e := rpcErr(t, "history with no stash", err); e.Code != codeNotFound || !strings.Contains(e.Message, "no page "+id+" in the stash") {
		t.Errorf("history with no stash: %d %s", e.Code, e.Message)
	}

	month := time.Now().AddDate(0, 0, -30).UTC().Truncate(time.Second)
	w := openChanger(t, s)
	w.put("tides", tides, "Tides", tideText("noon"), month)
	w.put("tides", tides, "Tides", tideText("dusk"), time.Now())
	w.put("tides", gone, "Gone", "# Gone\n\nSoon gone.\n", month)
	w.remove("tides", gone, time.Now())
	w.close()

	c := read(t, cs, "heed://snapshot/"+id+"/history")
	var h HistoryResource
	if err := json.Unmarshal([]byte(c.Text), &h); err != nil {
		t.Fatalf("history: %v\n%s", err, c.Text)
	}
	if c.MIMEType != "application/json" || h.ID != id || h.URL != tides || h.Title != "Tides" || h.Source != "tides" || len(h.Versions) != 2 ||
		h.Versions[0].N != 1 || !h.Versions[0].At.Equal(month) || h.Versions[0].URI != "heed://snapshot/"+id+"/versions/1" ||
		h.Versions[1].N != 2 || h.Versions[1].Hash != heed.HashOf(tideText("dusk")) || h.Versions[1].URI != "heed://snapshot/"+id+"/versions/2" ||
		c.Meta["current"] != float64(2) || c.Meta["versions"] != float64(2) {
		t.Errorf("history: %s %+v\n%s", c.MIMEType, c.Meta, c.Text)
	}
	for n, want := range map[int]string{1: tideText("noon"), 2: tideText("dusk")} {
		v := read(t, cs, fmt.Sprintf("heed://snapshot/%s/versions/%d", id, n))
		if v.Text != want || v.MIMEType != "text/markdown" || v.Meta["n"] != float64(n) || v.Meta["hash"] != heed.HashOf(want) || v.Meta["url"] != tides {
			t.Errorf("version %d: %q %s %+v", n, v.Text, v.MIMEType, v.Meta)
		}
	}
	// The current version is the page as heed://snapshot/{id} has it.
	if whole := read(t, cs, "heed://snapshot/"+id); whole.Text != tideText("dusk") {
		t.Errorf("the page as stored: %q", whole.Text)
	}

	// A page found gone: its removal is in its history, without text.
	c = read(t, cs, "heed://snapshot/"+goneID+"/history")
	h = HistoryResource{}
	if err := json.Unmarshal([]byte(c.Text), &h); err != nil || len(h.Versions) != 2 || h.Versions[1].Removed != "404" || h.Versions[1].URI != "" || c.Meta["current"] != float64(1) || c.Meta["removed"] != true {
		t.Errorf("history of a page gone: %v %+v\n%s", err, c.Meta, c.Text)
	}
	if v := read(t, cs, "heed://snapshot/"+goneID+"/versions/1"); v.Text != "# Gone\n\nSoon gone.\n" {
		t.Errorf("the last version of a page gone: %q", v.Text)
	}

	for _, tt := range []struct {
		uri  string
		code int64
		says string
	}{
		{"heed://snapshot/" + goneID + "/versions/2", codeNotFound, "version 2 of page " + goneID + " is its removal"},
		{"heed://snapshot/" + id + "/versions/3", codeNotFound, "the stash keeps no version 3 of page " + id},
		{"heed://snapshot/" + heed.IDOf("https://tides.example/never") + "/history", codeNotFound, "no page " + heed.IDOf("https://tides.example/never") + " in the stash"},
		{"heed://snapshot/" + heed.IDOf("https://tides.example/never") + "/versions/1", codeNotFound, "in the stash"},
		{"heed://snapshot/" + id + "/history?max_chars=10", jsonrpc.CodeInvalidParams, "take no query"},
		{"heed://snapshot/" + id + "/versions/1?start_index=3", jsonrpc.CodeInvalidParams, "take no query"},
		{"heed://snapshot/" + id + "/history/", jsonrpc.CodeInvalidParams, "is nothing of a snapshot heed serves"},
		{"heed://snapshot/" + id + "/History", jsonrpc.CodeInvalidParams, "is nothing of a snapshot heed serves"},
		{"heed://snapshot/" + id + "/versions/", jsonrpc.CodeInvalidParams, "is nothing of a snapshot heed serves"},
		{"heed://snapshot/" + id + "/versions/0", jsonrpc.CodeInvalidParams, "is nothing of a snapshot heed serves"},
		{"heed://snapshot/" + id + "/versions/01", jsonrpc.CodeInvalidParams, "is nothing of a snapshot heed serves"},
		{"heed://snapshot/" + id + "/versions/-1", jsonrpc.CodeInvalidParams, "is nothing of a snapshot heed serves"},
		{"heed://snapshot/" + id + "/versions/+1", jsonrpc.CodeInvalidParams, "is nothing of a snapshot heed serves"},
		{"heed://snapshot/" + id + "/versions/99999999999999999999", jsonrpc.CodeInvalidParams, "is nothing of a snapshot heed serves"},
		{"heed://snapshot/" + id + "/versions/1/../../x", jsonrpc.CodeInvalidParams, "is nothing of a snapshot heed serves"},
		{"heed://snapshot/" + id + "/versions/%31", jsonrpc.CodeInvalidParams, "is nothing of a snapshot heed serves"},
		{"heed://snapshot/" + id + "/history#x", jsonrpc.CodeInvalidParams, "is nothing of a snapshot heed serves"},
		{"heed://snapshot/../history", jsonrpc.CodeInvalidParams, "is not a snapshot's ID"},
		{"heed://snapshot/" + id + "/" + strings.Repeat("x", 1500), jsonrpc.CodeInvalidParams, "is nothing of a snapshot heed serves"},
	} {
		_, err := cs.ReadResource(t.Context(), &sdk.ReadResourceParams{URI: tt.uri})
		e := rpcErr(t, tt.uri[:min(len(tt.uri), 60)], err)
		if e.Code != tt.code || !strings.Contains(e.Message, tt.says) || len(e.Message) > 1000 || len(e.Data) > 1000 {
			t.Errorf("read %.80s: %d %.300s; want %d %q, bounded", tt.uri, e.Code, e.Message, tt.code, tt.says)
		}
	}
	for _, uri := range []string{"heed://snapshot/" + id + "/history", "heed://snapshot/" + id + "/versions/1"} {
		err := cs.Subscribe(t.Context(), &sdk.SubscribeParams{URI: uri})
		if e := rpcErr(t, "subscribe", err); e.Code != jsonrpc.CodeInvalidParams || !strings.Contains(e.Message, "subscribe to heed://snapshot/"+id+":") {
			t.Errorf("subscribe to %s: %d %s", uri, e.Code, e.Message)
		}
	}
}

// TestStashChangesDiffsWithinBudget: pages whose diffs are cut to fit,
// listed with budgets a few characters apart, so that some result is as
// full as it can be and holds the note that says diffs were cut: every
// result takes at most its budget, however full.
func TestStashChangesDiffsWithinBudget(t *testing.T) {
	s := newServer(t, Limits{}, loopback)
	cs, w := connectSent(t, s)
	ch := openChanger(t, s)
	for i := range 4 {
		u := fmt.Sprintf("https://tides.example/%02d", i)
		old := strings.Repeat(fmt.Sprintf("Line %d of the tide tables, the old one.\n", i), 60+i)
		cur := strings.Repeat(fmt.Sprintf("Line %d of the tide tables, a new one.\n", i), 60+i)
		ch.put("tides", u, "T", old, time.Now().AddDate(0, 0, -30))
		ch.put("tides", u, "T", cur, time.Now())
	}
	ch.close()
	for budget := MinChars; budget < 6000; budget += 37 {
		listed, cut := 0, 0
		for cursor, first := "", true; first || cursor != ""; first = false {
			a := map[string]any{"diffs": true, "max_chars": budget}
			if cursor != "" {
				a["cursor"] = cursor
			}
			var out ChangesOutput
			if text, isErr := sized(t, cs, w, budget, "stash_changes", a, &out); isErr || len(out.Pages) == 0 {
				t.Fatalf("stash_changes, budget %d, cursor %q: %.300s", budget, cursor, text)
			}
			for _, p := range out.Pages {
				if p.DiffCut {
					cut++
				}
			}
			listed, cursor = listed+len(out.Pages), out.NextCursor
		}
		if listed != 4 || cut == 0 {
			t.Errorf("budget %d: %d pages listed, %d diffs cut; want 4, some cut", budget, listed, cut)
		}
	}
}
