package crawltest

import (
	"cmp"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/heedhq/heed"
	"github.com/heedhq/heed/internal/crawl"
	"github.com/heedhq/heed/internal/crawlopt"
	"github.com/heedhq/heed/internal/testutil"
)

// Backend is a crawl engine as its tests drive it.
type Backend struct {
	// Crawl crawls with o to its end, on a machine of its own (a new
	// stash, a new database), and says what came of it. o.Start is on a
	// loopback site of the suite's; o's Delay is 0. With runs above 1,
	// it crawls with o again on the same machine, each crawl after the
	// last ended, and says what came of the last: its events, and the
	// snapshots the machine holds then. before, if set, is called before
	// each run, with its number from 0: the site changes between runs.
	Crawl func(t *testing.T, o crawl.Options, runs int, before func(run int)) Result
	// KnownDrift are the cases the backend is known to fail, by name,
	// each with how it differs: Run skips them, saying so. An entry is
	// removed once the backend conforms; one that names no case fails.
	KnownDrift map[string]string
}

// Result is what came of a crawl.
type Result struct {
	// Events are what the crawl told of each URL it ended: stored,
	// unchanged, skipped or failed, with the reason. Events of other
	// kinds (the scope, a wait) are not compared, nor their timing.
	Events []crawl.Event
	// Snapshots are the pages the crawl stored, by URL.
	Snapshots map[string]Snapshot
	// Runs are every run's events, in the order of the runs.
	Runs [][]crawl.Event
	// Histories are the histories of the pages the machine holds after
	// the last run, by URL, removed pages included.
	Histories map[string][]heed.PageVersion
}

// Snapshot is what the suite compares of a stored page.
type Snapshot struct {
	Title, Markdown string
	Author          string
	Published       time.Time
}

// Page is what a site answers at a path. Its Body and Location may
// name the case's sites as {site} and {other}, their base URLs
// (http://127.0.0.1:port).
type Page struct {
	Status   int               // 0 is 200
	Type     string            // the Content-Type; "" is text/html; charset=utf-8
	Header   map[string]string // more headers: X-Robots-Tag; an ETag answers 304 to a request that names it
	Body     string
	Location string // where a redirect (Status 3xx) goes
	// Fails is how many of its first requests it answers 503 to, a
	// cause that may pass, before it answers as the rest says.
	Fails int
}

// Site is a loopback site's pages by path; a path it lacks is a 404, its
// robots.txt too.
type Site map[string]Page

// Event is an event a case expects. Its URL is a path of the case's
// site ("/a"), or of its other site ("{other}/a"); Detail, if set, is a
// fragment the event's detail must hold ({site} and {other} expanded).
type Event struct {
	Kind   crawl.Kind
	URL    string
	Reason string
	Detail string
}

// Stored is a snapshot a case expects: its title, and a fragment its
// Markdown must hold, if set.
type Stored struct {
	Title, Has string
	// Author and Published, where set, are what the snapshot must say
	// of them (a document's information).
	Author    string
	Published time.Time
}

// Case is a site, the options of its crawl, and what must come of it,
// whatever the backend.
type Case struct {
	Name string
	// Site is the site crawled; Other, if set, a second origin beside it
	// (another port of loopback).
	Site, Other Site
	// Start is the start URL's path; "" is "/".
	Start string
	// Set, if set, changes the crawl's options from crawlopt.Defaults
	// with no Delay and a Deadline of 30 s; the Start is the site's, and
	// the sitemaps and llms.txt are read only where Sitemaps and LLMsTxt
	// say so.
	Set               func(o *crawlopt.Options)
	Sitemaps, LLMsTxt bool
	// AllowOther puts the other site's host in Options.AllowHosts.
	AllowOther bool
	// Again crawls the site a second time on the same machine, once the
	// first crawl ended: Events are the second crawl's, Stored what the
	// machine holds after it, Requests both crawls'.
	Again bool
	// Later are the site as it is for more crawls on the same machine,
	// each once the last ended (pages changed, gone, back): Events are
	// the last crawl's, Stored what the machine holds after it.
	Later []Site
	// Changes are what each crawl told of the pages it stored or found
	// gone, a map a run (New, Changed, Unchanged and Removed events by
	// path); Histories the entries of each page's history after the last,
	// by path, each "v" for a version or "removed REASON".
	Changes   []map[string]string
	Histories map[string][]string

	// Events are every event the crawl must tell, and no more: each URL
	// it ended, by kind, URL and reason.
	Events []Event
	// Stored are the snapshots the crawl must store, and no more, by URL
	// as Events name them.
	Stored map[string]Stored
	// Requests are the requests the sites must serve, by path as Events
	// name URLs, robots.txt's included: how max_pages was spent.
	Requests map[string]int
	// NotModified are those of the Requests answered 304 (not modified)
	// to a conditional request: the site's validators were sent.
	NotModified map[string]int
}

// Run runs every case against b, each a subtest by the case's name.
func Run(t *testing.T, b Backend) {
	cases := Cases()
	names := map[string]bool{}
	for _, c := range cases {
		names[c.Name] = true
	}
	for _, name := range slices.Sorted(maps.Keys(b.KnownDrift)) {
		if !names[name] {
			t.Errorf("known drift %q names no case", name)
		}
	}
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			if why, ok := b.KnownDrift[c.Name]; ok {
				t.Skip("known drift: " + why)
			}
			c.run(t, b)
		})
	}
}

// server is one of a case's sites, serving.
type server struct {
	*testutil.Arrivals
	pages       Site
	mu          sync.Mutex
	asked       map[string]int // by path as pages has it
	notModified map[string]int // requests answered 304, by path as requested
	// expand names the case's sites in a page.
	expand func(string) string
}

func serve(t *testing.T, pages Site) *server {
	s := &server{pages: pages, asked: map[string]int{}, notModified: map[string]int{}}
	s.Arrivals = testutil.NewArrivals(t, 0, s.serve)
	return s
}

func (s *server) serve(w http.ResponseWriter, r *http.Request) {
	key := r.URL.RequestURI()
	s.mu.Lock()
	pages := s.pages
	s.mu.Unlock()
	p, ok := pages[key]
	if !ok {
		key = r.URL.Path
		p, ok = pages[key]
	}
	if !ok {
		http.NotFound(w, r)
		return
	}
	s.mu.Lock()
	s.asked[key]++
	n := s.asked[key]
	s.mu.Unlock()
	if n <= p.Fails {
		http.Error(w, "busy", http.StatusServiceUnavailable)
		return
	}
	if etag := p.Header["ETag"]; etag != "" && r.Header.Get("If-None-Match") == etag {
		// A conditional request of a page as it was.
		s.mu.Lock()
		s.notModified[r.URL.Path]++
		s.mu.Unlock()
		w.Header().Set("ETag", etag)
		w.WriteHeader(http.StatusNotModified)
		return
	}
	for k, v := range p.Header {
		w.Header().Set(k, v)
	}
	if p.Location != "" {
		w.Header().Set("Location", s.expand(p.Location))
	}
	ct := p.Type
	if ct == "" {
		ct = "text/html; charset=utf-8"
	}
	w.Header().Set("Content-Type", ct)
	if p.Status != 0 {
		w.WriteHeader(p.Status)
	}
	fmt.Fprint(w, s.expand(p.Body))
}

func (c Case) run(t *testing.T, b Backend) {
	site := serve(t, c.Site)
	var other *server
	names := []string{"{site}", site.URL}
	if c.Other != nil {
		other = serve(t, c.Other)
		names = append(names, "{other}", other.URL)
	}
	expand := strings.NewReplacer(names...).Replace
	site.expand = expand
	if other != nil {
		other.expand = expand
	}
	// A URL as the case names it: a path of the site, or {other}'s.
	full := func(u string) string {
		if strings.HasPrefix(u, "{") {
			return expand(u)
		}
		return site.URL + u
	}
	short := func(u string) string {
		if other != nil && strings.HasPrefix(u, other.URL) {
			return "{other}" + strings.TrimPrefix(u, other.URL)
		}
		return strings.TrimPrefix(u, site.URL)
	}

	o := crawl.Options{Options: crawlopt.Defaults()}
	o.Delay, o.Deadline = 0, 30*time.Second
	if c.Set != nil {
		c.Set(&o.Options)
	}
	o.Start = site.URL + cmp.Or(c.Start, "/")
	o.NoSitemaps, o.NoLLMsTxt = !c.Sitemaps, !c.LLMsTxt
	if c.AllowOther && other != nil {
		o.AllowHosts = append(slices.Clone(o.AllowHosts), strings.TrimPrefix(other.URL, "http://"))
	}
	runs := 1
	if c.Again {
		runs = 2
	}
	runs += len(c.Later)
	res := b.Crawl(t, o, runs, func(run int) {
		if run > 0 && run <= len(c.Later) {
			site.mu.Lock()
			site.pages = c.Later[run-1]
			site.mu.Unlock()
		}
	})
	if c.Changes != nil {
		c.checkHistory(t, res, short)
	}

	// The events: every URL ended as the case says, and none beside.
	var got, want []string
	details := map[string][]string{}
	for _, e := range res.Events {
		switch e.Kind {
		case crawl.Stored, crawl.Unchanged, crawl.Skipped, crawl.Failed:
			k := eventKey(e.Kind, short(e.URL), e.Reason)
			got = append(got, k)
			details[k] = append(details[k], e.Detail)
		}
	}
	for _, e := range c.Events {
		want = append(want, eventKey(e.Kind, short(full(e.URL)), e.Reason))
	}
	if missing, extra := diff(want, got); len(missing)+len(extra) > 0 {
		t.Errorf("events differ:\n  missing: %s\n  unexpected: %s\n  all: %s", list(missing), list(extra), list(sorted(got)))
	}
	for _, e := range c.Events {
		if e.Detail == "" {
			continue
		}
		k := eventKey(e.Kind, short(full(e.URL)), e.Reason)
		for _, d := range details[k] {
			if !strings.Contains(d, expand(e.Detail)) {
				t.Errorf("%s: detail %q, want it to say %q", k, d, expand(e.Detail))
			}
		}
	}

	// The snapshots: those the case names, with their titles and words.
	var gotURLs, wantURLs []string
	for u := range res.Snapshots {
		gotURLs = append(gotURLs, short(u))
	}
	for u, s := range c.Stored {
		wantURLs = append(wantURLs, short(full(u)))
		snap, ok := res.Snapshots[full(u)]
		if !ok {
			continue
		}
		if snap.Title != s.Title {
			t.Errorf("snapshot %s: title %q, want %q", u, snap.Title, s.Title)
		}
		if s.Has != "" && !strings.Contains(snap.Markdown, s.Has) {
			t.Errorf("snapshot %s: want its Markdown to hold %q:\n%s", u, s.Has, snap.Markdown)
		}
		if s.Author != "" && snap.Author != s.Author || !s.Published.IsZero() && !snap.Published.Equal(s.Published) {
			t.Errorf("snapshot %s: author %q, published %v; want %q, %v", u, snap.Author, snap.Published, s.Author, s.Published)
		}
	}
	if missing, extra := diff(wantURLs, gotURLs); len(missing)+len(extra) > 0 {
		t.Errorf("snapshots differ:\n  missing: %s\n  unexpected: %s", list(missing), list(extra))
	}

	// The requests the sites served, robots.txt's included.
	asked := map[string]int{}
	for _, a := range site.Log() {
		asked[a.Path]++
	}
	if other != nil {
		for _, a := range other.Log() {
			asked["{other}"+a.Path]++
		}
	}
	if !maps.Equal(asked, c.Requests) {
		t.Errorf("requests served %v, want %v", asked, c.Requests)
	}
	site.mu.Lock()
	defer site.mu.Unlock()
	if !maps.Equal(site.notModified, c.NotModified) {
		t.Errorf("requests answered not modified %v, want %v", site.notModified, c.NotModified)
	}
}

// checkHistory checks what each run told of the pages it stored or
// found gone, and the pages' histories after the last, against the
// case's Changes and Histories: the crawl's summary and the store's
// history agree.
func (c Case) checkHistory(t *testing.T, res Result, short func(string) string) {
	t.Helper()
	if len(res.Runs) != len(c.Changes) {
		t.Fatalf("%d runs told, want %d", len(res.Runs), len(c.Changes))
	}
	for i, events := range res.Runs {
		got := map[string]string{}
		for _, e := range events {
			switch e.Kind {
			case crawl.Stored:
				got[short(e.URL)] = string(e.Change)
			case crawl.Unchanged:
				got[short(e.URL)] = "unchanged"
			case crawl.Removed:
				got[short(e.URL)] = "removed " + e.Reason
			}
		}
		if !maps.Equal(got, c.Changes[i]) {
			t.Errorf("run %d told %v, want %v", i+1, got, c.Changes[i])
		}
	}
	got := map[string][]string{}
	for u, vs := range res.Histories {
		var entries []string
		for i, v := range vs {
			if v.N != i+1 {
				t.Errorf("%s: entry %d is numbered %d", short(u), i+1, v.N)
			}
			if v.Removed != "" {
				entries = append(entries, "removed "+v.Removed)
			} else {
				entries = append(entries, "v")
			}
		}
		got[short(u)] = entries
	}
	if !maps.EqualFunc(got, c.Histories, slices.Equal) {
		t.Errorf("histories %v, want %v", got, c.Histories)
	}
}

func eventKey(kind crawl.Kind, u, reason string) string {
	if reason == "" {
		return fmt.Sprintf("%s %s", kind, u)
	}
	return fmt.Sprintf("%s %s (%s)", kind, u, reason)
}

// diff is what want holds and got lacks, and what got holds beside,
// each as many times as it is over.
func diff(want, got []string) (missing, extra []string) {
	n := map[string]int{}
	for _, w := range want {
		n[w]++
	}
	for _, g := range got {
		n[g]--
	}
	for _, k := range slices.Sorted(maps.Keys(n)) {
		for ; n[k] > 0; n[k]-- {
			missing = append(missing, k)
		}
		for ; n[k] < 0; n[k]++ {
			extra = append(extra, k)
		}
	}
	return missing, extra
}

func sorted(s []string) []string { return slices.Sorted(slices.Values(s)) }

func list(s []string) string {
	if len(s) == 0 {
		return "none"
	}
	return strings.Join(s, "; ")
}
