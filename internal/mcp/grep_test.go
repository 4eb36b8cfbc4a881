package mcp

import (
	"context"
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// slowPattern is a pattern web_grep takes, and costly enough on long
// lines that matching a few megabytes of them takes far longer than a
// test waits: only a grep that stops when asked to returns in time.
const slowPattern = "[a-z]{300}x"

// longLines is n lines of a's, each as long as web_grep matches.
func longLines(n int) string {
	return strings.Repeat(strings.Repeat("a", maxMatchBytes)+"\n", n)
}

// TestGrepPatternCost: a short pattern whose program is large (a large
// repeat count) is refused with a way on; one a little smaller is taken.
func TestGrepPatternCost(t *testing.T) {
	site := newSite(t)
	site.set("/", html("Start", []string{"The start page, with words enough to be the content."}))
	s := newServer(t, Limits{}, loopback)
	cs := connect(t, s, nil)
	text, isErr := call(t, cs, "web_grep", map[string]any{"url": site.URL + "/", "pattern": "[a-z]{1000}x"}, nil)
	if !isErr || !strings.Contains(text, "pattern is too costly to match") || !strings.Contains(text, "use a smaller count") {
		t.Errorf("[a-z]{1000}x: error %v, %q", isErr, text)
	}
	if n := len(site.hits()); n != 0 {
		t.Errorf("a refused pattern fetched %d pages", n)
	}
	var out GrepOutput
	if text, isErr := call(t, cs, "web_grep", map[string]any{"url": site.URL + "/", "pattern": slowPattern}, &out); isErr || out.PagesSearched != 1 {
		t.Errorf("%s: %s %+v", slowPattern, text, out)
	}
}

// TestGrepCancel: cancelling web_grep stops the matching of a long page
// that would take minutes; the call returns promptly.
func TestGrepCancel(t *testing.T) {
	site := newSite(t)
	site.set("/big.txt", longLines(256)) // 4 MB
	site.types["/big.txt"] = "text/plain"
	s := newServer(t, Limits{}, loopback)
	called := waitCalled(s)
	var progress progressLog
	cs := connect(t, s, &progress)
	ctx, cancel := context.WithCancel(t.Context())
	errc := make(chan error, 1)
	go func() {
		_, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "web_grep", Arguments: map[string]any{"url": site.URL + "/big.txt", "pattern": slowPattern}, Meta: sdk.Meta{"progressToken": "g"}})
		errc <- err
	}()
	// The page is read and the matching begun.
	for len(progress.all()) == 0 {
		time.Sleep(5 * time.Millisecond)
	}
	if msg := progress.all()[0].Message; !strings.Contains(msg, "searching it") {
		t.Fatalf("progress %q", msg)
	}
	cancel()
	if err := waitFor(t, errc, "the cancelled call to return"); err == nil {
		t.Errorf("the cancelled call returned no error")
	}
	if tool := waitFor(t, called, "web_grep to stop after the cancellation"); tool != "web_grep" {
		t.Errorf("called %s", tool)
	}
}

// TestGrepDeadline: the user's deadline bounds web_grep's matching, at
// depth 0 and in a crawl, and the result says the search was cut short.
func TestGrepDeadline(t *testing.T) {
	site := newSite(t)
	site.set("/big.txt", longLines(256))
	site.types["/big.txt"] = "text/plain"
	var paras []string
	for range 256 {
		paras = append(paras, strings.Repeat("a", maxMatchBytes-10))
	}
	site.set("/", html("Big", paras, "/next"))
	site.set("/next", html("Next", []string{"A page after the big one, with words enough."}))
	s := newServer(t, Limits{Deadline: 500 * time.Millisecond}, loopback)
	cs := connect(t, s, nil)
	for _, args := range []map[string]any{
		{"url": site.URL + "/big.txt", "pattern": slowPattern},
		{"url": site.URL + "/", "pattern": slowPattern, "depth": 1},
	} {
		// Matching it all takes a minute or more: the call must end at
		// the deadline, well within the wait's bound.
		ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
		res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "web_grep", Arguments: args})
		cancel()
		if err != nil {
			t.Fatalf("web_grep %v under a deadline of 500ms: %v", args, err)
		}
		var out GrepOutput
		text, isErr := decode(t, res, &out)
		if isErr || len(out.Notes) == 0 || !strings.Contains(out.Notes[0], "deadline of 500ms passed before the search was done") || !strings.Contains(text, "deadline") {
			t.Errorf("web_grep %v under a deadline: error %v, %q %+v", args, isErr, text, out.Notes)
		}
	}
}

// TestGrepManyMatches: a page of millions of matching lines is counted
// whole, and only the matches listed are kept.
func TestGrepManyMatches(t *testing.T) {
	const lines = 5 << 20 // 10 MB
	site := newSite(t)
	site.set("/lines.txt", strings.Repeat("a\n", lines))
	site.types["/lines.txt"] = "text/plain"
	s := newServer(t, Limits{}, loopback)
	cs := connect(t, s, nil)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	var out GrepOutput
	text, isErr := call(t, cs, "web_grep", map[string]any{"url": site.URL + "/lines.txt", "pattern": "a"}, &out)
	runtime.ReadMemStats(&after)
	if isErr || out.MatchCount != lines || len(out.Matches) == 0 || !out.Truncated || out.NextCursor == "" {
		t.Fatalf("web_grep: %.200s %+v", text, out.MatchCount)
	}
	if want := fmt.Sprintf("(the first %d kept; %d more not kept)", MaxMatches, lines-MaxMatches); !strings.Contains(text, want) {
		t.Errorf("text %.200q lacks %q", text, want)
	}
	// The matches kept come in pages that fit the budget, the next from
	// the cursor of the last, without reading the page again.
	matches := out.Matches
	for cursor := out.NextCursor; cursor != ""; {
		var next GrepOutput
		if text, isErr := call(t, cs, "web_grep", map[string]any{"url": site.URL + "/lines.txt", "pattern": "a", "cursor": cursor}, &next); isErr || len(next.Matches) == 0 {
			t.Fatalf("web_grep, cursor %q: %.300s", cursor, text)
		}
		matches, cursor = append(matches, next.Matches...), next.NextCursor
	}
	if len(matches) != MaxMatches || matches[MaxMatches-1].Line != MaxMatches || site.count("/lines.txt") != 1 {
		t.Errorf("%d matches in all pages, the last of line %d; the page read %d times", len(matches), matches[len(matches)-1].Line, site.count("/lines.txt"))
	}
	// The page itself is read, extracted and sent: some tens of MB. A
	// list of every match is 5 million of them, hundreds of MB.
	if alloc := (after.TotalAlloc - before.TotalAlloc) >> 20; alloc > 200 && !raceEnabled {
		t.Errorf("one web_grep of a 10 MB page allocated %d MB", alloc)
	}
}

// TestGrepLongLine: a match beyond the first part of a very long line is
// not found, and the result says the line was searched in part.
func TestGrepLongLine(t *testing.T) {
	site := newSite(t)
	site.set("/long.txt", "short line with needle\n"+strings.Repeat("b", 2*maxMatchBytes)+"needle\n")
	site.types["/long.txt"] = "text/plain"
	s := newServer(t, Limits{}, loopback)
	cs := connect(t, s, nil)
	var out GrepOutput
	text, isErr := call(t, cs, "web_grep", map[string]any{"url": site.URL + "/long.txt", "pattern": "needle"}, &out)
	if isErr || out.MatchCount != 1 || len(out.Notes) != 1 || !strings.Contains(out.Notes[0], "1 lines were longer than 16 KB and were searched in their first 16 KB only") {
		t.Errorf("web_grep of a long line: %.300s %+v", text, out)
	}
}

// TestGrepProgress: a web_grep crawl sends a progress notification for
// each page fetched, in order, saying how many pages were searched and
// matched.
func TestGrepProgress(t *testing.T) {
	site := newSite(t)
	site.set("/", html("Start", []string{"The harbour start page, with words enough."}, "/a", "/b"))
	site.set("/a", html("A", []string{"Page a of the harbour, with words enough."}))
	site.set("/b", html("B", []string{"Page b, with words enough but no match."}))
	s := newServer(t, Limits{}, loopback)
	s.progressEvery = 0 // a notification for every page
	var progress progressLog
	cs := connect(t, s, &progress)
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "web_grep", Arguments: map[string]any{"url": site.URL + "/", "pattern": "harbour", "depth": 1}, Meta: sdk.Meta{"progressToken": "grep-1"}})
	if err != nil {
		t.Fatal(err)
	}
	var out GrepOutput
	if text, isErr := decode(t, res, &out); isErr || out.MatchCount != 2 || out.PagesSearched != 3 {
		t.Fatalf("web_grep: %s %+v", text, out)
	}
	events := drained(t, cs, &progress, site.URL+"/")
	if len(events) != 3 {
		t.Fatalf("%d progress notifications, want one per page (3)", len(events))
	}
	for i, p := range events {
		if p.ProgressToken != "grep-1" || p.Progress != float64(i+1) || p.Total != DefaultMaxPages || !strings.Contains(p.Message, "searched") {
			t.Errorf("progress %d: %+v", i, p)
		}
	}
	if last := events[len(events)-1].Message; !strings.HasPrefix(last, "3 of at most 100 pages fetched, 3 searched, 2 matches") {
		t.Errorf("last progress message %q", last)
	}
}
