package feed

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/heedhq/heed/internal/crawl"
	"github.com/heedhq/heed/internal/source"
	"github.com/heedhq/heed/internal/source/sourcetest"
)

// site serves feeds and pages on loopback, and records the requests.
type site struct {
	*httptest.Server
	mu    sync.Mutex
	pages map[string]page
	reqs  []*http.Request
}

type page struct {
	typ, body, etag string
	status          int
}

func newSite(t *testing.T) *site {
	s := &site{pages: map[string]page{}}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.reqs = append(s.reqs, r)
		p, ok := s.pages[r.URL.Path]
		s.mu.Unlock()
		if !ok {
			http.NotFound(w, r)
			return
		}
		if p.etag != "" {
			w.Header().Set("ETag", p.etag)
			if r.Header.Get("If-None-Match") == p.etag {
				w.WriteHeader(http.StatusNotModified)
				return
			}
		}
		if p.typ != "" {
			w.Header().Set("Content-Type", p.typ)
		}
		if p.status != 0 {
			w.WriteHeader(p.status)
		}
		fmt.Fprint(w, strings.ReplaceAll(p.body, "{{base}}", s.URL))
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *site) set(path string, p page) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.pages[path] = p
}

func (s *site) requests() []*http.Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]*http.Request(nil), s.reqs...)
}

func fixture(t testing.TB, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// website stands in for the website kind: it takes every URL and records
// it.
type website struct{ got []string }

func (w *website) Name() string          { return "website" }
func (w *website) Match(u *url.URL) bool { return true }
func (w *website) Ingest(_ context.Context, _ *source.Env, in source.Input) (*source.Result, error) {
	w.got = append(w.got, in.URL)
	return &source.Result{Crawl: &crawl.Summary{}}, nil
}

func registry() (*source.Registry, *website) {
	w := &website{}
	return &source.Registry{Kinds: []source.Kind{Kind{}, w}}, w
}

func TestFormats(t *testing.T) {
	s := newSite(t)
	tests := []struct {
		file, typ, path string
		slug, title     string
		want            []string // in the snapshot, in this order
		not             []string
	}{
		{"rss2.xml", "application/rss+xml; charset=utf-8", "/feed.xml", "feeds/127-0-0-1-PORT-feed-xml.md", "Harbour Notes", []string{
			"A harbourmaster's notes on tides & boats",
			"## Spring tides & neap tides\n\n- Link: <https://blog.example.com/2026/spring-tides>\n- Date: 2026-03-02T07:30:00Z\n- Author: Mara Quayle\n\n" +
				"The **moon** and the sun pull together at [new moon](https://blog.example.com/moon).\n\n#### Why it matters\n\nMooring lines need slack.\n\n```sh\n## not a heading: a shell comment\ntide --at noon\n```",
			"## Fog signals\n\n- Link: <https://blog.example.com/2026/fog>\n- Date: 2026-03-01T10:00:00Z\n- Author: Mara Quayle\n- ID: harbour-42\n\nTwo long blasts — every two minutes.",
			"## Old news\n\n- Link: <https://blog.example.com/2025/old>\n- Date: 2025-01-01T00:00:00Z\n\nFrom last year.",
		}, []string{"Short summary that the content supersedes", "<p>", "CDATA"}},
		{"rss091.xml", "text/xml", "/rss", "feeds/127-0-0-1-PORT-rss.md", "Lighthouse Log", []string{
			"Keepers' log, café edition",
			"## Lamp relit at Skerry Point\n\n- Link: <http://lights.example.org/skerry>\n\nThe lamp at Skerry Point burns again. Café open.",
		}, nil},
		{"latin1.xml", "application/xml", "/latin1.xml", "feeds/127-0-0-1-PORT-latin1-xml.md", "Latin-1 été", []string{
			"## Café at the pier\n\n- Date: unknown\n\nCrème brûlée for sailors.",
		}, nil},
		{"rdf.xml", "application/rdf+xml", "/index.rdf", "feeds/127-0-0-1-PORT-index-rdf.md", "Tide Tables", []string{
			"## High water at Portmoor\n\n- Link: <https://tides.example.net/2026-03-02>\n- Date: 2026-03-02T06:12:00Z\n- Author: Tide Office\n\nHigh water 06:12, 4.8 metres; low water 12:30.",
		}, nil},
		{"atom.xml", "application/atom+xml", "/atom", "feeds/127-0-0-1-PORT-atom.md", "Keel & Rudder", []string{
			"Boat-building *journal*",
			"## Steaming oak frames\n\n- Link: <https://keel.example.com/2026/steaming>\n- Date: 2026-02-27T14:00:00Z\n- Author: Ines Hull\n- ID: urn:uuid:1225c695-cfb8-4ebb-aaaa-80da344efa6a\n\nOak bends after an hour per inch in the [steam box](https://keel.example.com/box).",
			"## Caulking with cotton\n",
			"Cotton first, then **oakum**.",
		}, nil},
		{"feed.json", "application/feed+json", "/feed.json", "feeds/127-0-0-1-PORT-feed-json.md", "Chart Room", []string{
			"Notes from the chart room",
			"## Soundings in fathoms\n\n- Link: <https://charts.example.com/soundings>\n- Date: 2026-02-10T10:00:00Z\n- Author: Olu Fathom\n- ID: 2\n\nA fathom is *six feet*.",
			"## Compass roses\n\n- Link: <https://charts.example.com/compass>\n- Date: 2026-01-05T08:00:00Z\n- ID: 1\n\nTrue north and magnetic north differ by the variation.",
		}, nil},
	}
	port := strings.TrimPrefix(s.URL, "http://127.0.0.1:")
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			env := sourcetest.NewEnv(t)
			s.set(tt.path, page{typ: tt.typ, body: fixture(t, tt.file)})
			reg, web := registry()
			res, err := reg.Ingest(t.Context(), env.Env, "", source.Input{Name: "blog", URL: s.URL + tt.path})
			if err != nil {
				t.Fatal(err)
			}
			if res.Kind != "feed" || len(web.got) != 0 || !res.Changed {
				t.Fatalf("got kind %q (website asked %v, changed %v), want the feed kind", res.Kind, web.got, res.Changed)
			}
			snap, err := env.Store.Get(t.Context(), s.URL+tt.path)
			if err != nil {
				t.Fatal(err)
			}
			if want := strings.ReplaceAll(tt.slug, "PORT", port); snap.Path != want {
				t.Errorf("path got %q, want %q", snap.Path, want)
			}
			if snap.Title != tt.title {
				t.Errorf("title got %q, want %q", snap.Title, tt.title)
			}
			if strings.Join(snap.Tags, ",") != "rss,127.0.0.1" {
				t.Errorf("tags got %v, want [rss 127.0.0.1]", snap.Tags)
			}
			at := 0
			for _, w := range tt.want {
				i := strings.Index(snap.Markdown[at:], w)
				if i < 0 {
					t.Errorf("the snapshot lacks, in order,\n%s\n--- got:\n%s", w, snap.Markdown)
					break
				}
				at += i + len(w)
			}
			for _, n := range tt.not {
				if strings.Contains(snap.Markdown, n) {
					t.Errorf("the snapshot holds %q:\n%s", n, snap.Markdown)
				}
			}
			if res.Items != len(Sections(snap.Markdown)) || res.Items == 0 {
				t.Errorf("items got %d, sections %d", res.Items, len(Sections(snap.Markdown)))
			}
		})
	}
}

func TestHostileXML(t *testing.T) {
	t.Run("billion laughs", func(t *testing.T) {
		f, err := Read([]byte(fixture(t, "billion-laughs.xml")), "https://laughs.example.com/feed", 0)
		if err != nil {
			return // refused: fine
		}
		var all strings.Builder
		all.WriteString(f.Title + f.Description)
		for _, it := range f.Items {
			all.WriteString(it.Title + it.Markdown)
		}
		if f.Title != "Laughs &lol9;" || strings.Contains(all.String(), "lollol") || all.Len() > 1000 {
			t.Errorf("entities were expanded: %d bytes, %.80q", all.Len(), all.String())
		}
	})
	t.Run("external entities", func(t *testing.T) {
		var hits atomic.Int32
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			hits.Add(1)
			fmt.Fprint(w, "FETCHED-BY-THE-PARSER")
		}))
		defer srv.Close()
		secret := filepath.Join(t.TempDir(), "secret.txt")
		os.WriteFile(secret, []byte("LOCAL-SECRET"), 0o600)
		doc := `<?xml version="1.0"?>
<!DOCTYPE rss [
  <!ENTITY remote SYSTEM "` + srv.URL + `/xxe">
  <!ENTITY local SYSTEM "file://` + secret + `">
  <!ENTITY % param SYSTEM "` + srv.URL + `/dtd"> %param;
]>
<rss version="2.0"><channel><title>XXE &remote;</title><link>https://x.example.com/</link><description>&local;</description>
<item><title>Item &local;</title><description>&remote;</description></item></channel></rss>`
		f, err := Read([]byte(doc), "https://x.example.com/feed", 0)
		if hits.Load() != 0 {
			t.Errorf("the parser made %d requests", hits.Load())
		}
		if err != nil {
			return
		}
		all := f.Title + f.Description
		for _, it := range f.Items {
			all += it.Title + it.Markdown
		}
		if strings.Contains(all, "FETCHED") || strings.Contains(all, "LOCAL-SECRET") {
			t.Errorf("an external entity was read: %q", all)
		}
	})
}

// bigFeed is an RSS feed of n items, the newest last, so that the limit
// must pick them from the end.
func bigFeed(n int) []byte {
	var b strings.Builder
	b.WriteString(`<?xml version="1.0"?><rss version="2.0"><channel><title>Big</title><link>https://big.example.com/</link><description>many</description>`)
	start := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := range n {
		fmt.Fprintf(&b, "<item><title>Item %d</title><link>https://big.example.com/%d</link><pubDate>%s</pubDate><description><![CDATA[<p>Body of item %d, with a few words to make it a paragraph.</p>]]></description></item>\n",
			i, i, start.Add(time.Duration(i)*time.Hour).Format(time.RFC1123Z), i)
	}
	b.WriteString("</channel></rss>")
	return []byte(b.String())
}

func TestLimitHolds(t *testing.T) {
	s := newSite(t)
	s.set("/big.xml", page{typ: "application/rss+xml", body: string(bigFeed(10000))})
	env := sourcetest.NewEnv(t)
	reg, _ := registry()
	res, err := reg.Ingest(t.Context(), env.Env, "feed", source.Input{Name: "big", URL: s.URL + "/big.xml"})
	if err != nil {
		t.Fatal(err)
	}
	snap, _ := env.Store.Get(t.Context(), s.URL+"/big.xml")
	secs := Sections(snap.Markdown)
	if res.Items != source.DefaultLimit || len(secs) != source.DefaultLimit {
		t.Fatalf("got %d items (%d sections), want %d", res.Items, len(secs), source.DefaultLimit)
	}
	// The newest 50, newest first.
	if !strings.HasPrefix(secs[0].text, "## Item 9999\n") || !strings.HasPrefix(secs[49].text, "## Item 9950\n") {
		t.Errorf("got first %q and last %q, want items 9999 to 9950", secs[0].text[:16], secs[49].text[:16])
	}
	// A limit in the input holds too.
	res, err = reg.Ingest(t.Context(), env.Env, "feed", source.Input{Name: "big2", URL: s.URL + "/big.xml", Limit: 7})
	if err != nil || res.Items != 7 {
		t.Errorf("limit 7: got %v items, %v", res, err)
	}
}

func TestTooLargeIsRefused(t *testing.T) {
	s := newSite(t)
	s.set("/huge.xml", page{typ: "application/rss+xml", body: "<rss><channel><title>x</title>" + strings.Repeat("<item><title>x</title></item>", MaxBytes/28+10) + "</channel></rss>"})
	s.set("/broken.xml", page{typ: "application/rss+xml", body: "<rss version=\"2.0\"><channel><title>Broken</title><item><title>a</ti"})
	env := sourcetest.NewEnv(t)
	reg, _ := registry()
	for _, p := range []string{"/huge.xml", "/broken.xml"} {
		res, err := reg.Ingest(t.Context(), env.Env, "feed", source.Input{Name: "x", URL: s.URL + p})
		if p == "/broken.xml" && err == nil {
			// Lenient parsing may keep what it read; it must not panic or
			// invent items.
			if res.Items > 1 {
				t.Errorf("%s: %d items", p, res.Items)
			}
			continue
		}
		if err == nil {
			t.Errorf("%s: got %+v, want an error", p, res)
		}
	}
	if entries, _ := env.Stash.List(t.Context(), "x"); len(entries) > 1 {
		t.Errorf("stored %v", entries)
	}
	if _, err := env.Store.Get(t.Context(), s.URL+"/huge.xml"); err == nil {
		t.Errorf("a too-large feed was stored")
	}
}

func TestFallThrough(t *testing.T) {
	s := newSite(t)
	html := func(head string) page {
		return page{typ: "text/html; charset=utf-8", body: "<!doctype html><html><head><title>Blog</title>" + head + "</head><body><p>Hello</p><link rel=alternate type=application/rss+xml href=/in-body.xml></body></html>"}
	}
	s.set("/feed", html(""))                 // looks like a feed, serves a page
	s.set("/plain/", html(""))               // a page without feeds
	s.set("/missing.rss", page{status: 404}) // looks like a feed, is missing
	s.set("/blog/", html(`<link rel="alternate" type="application/rss+xml" title="Posts" href="posts.xml">
		<link rel="alternate stylesheet" href="/style.css"><link rel=alternate type="application/atom+xml" href="{{base}}/comments.atom">
		<link rel="alternate" type="application/rss+xml" href="/blog/posts.xml">`))
	s.set("/blog/posts.xml", page{typ: "application/rss+xml", body: fixture(t, "rss2.xml")})
	s.set("/one/", html(`<base href="/deep/"><link rel="alternate" type="application/feed+json" href="feed.json">`))
	s.set("/deep/feed.json", page{typ: "application/json", body: fixture(t, "feed.json")})
	s.set("/dud/", html(`<link rel="alternate" type="application/rss+xml" href="/dud.xml">`))
	s.set("/dud.xml", page{typ: "text/html", body: "<html>not a feed</html>"})

	tests := []struct {
		path      string
		kind, url string // the kind that took it, and the URL it recorded
		warn      string // "" for no warning
	}{
		{"/feed", "website", "/feed", "is a web page that names no feed"},
		{"/plain/", "website", "/plain/", ""},
		{"/missing.rss", "website", "/missing.rss", "answered 404"},
		{"/blog/", "website", "/blog/", "naming 2 feeds; crawling it as a website"},
		{"/one/", "website", "/one/", "naming a feed; crawling it as a website. To follow the feed instead:\n  heed add {{base}}/deep/feed.json"},
		{"/dud/", "website", "/dud/", "naming a feed; crawling it as a website"},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			env := sourcetest.NewEnv(t)
			reg, web := registry()
			res, err := reg.Ingest(t.Context(), env.Env, "", source.Input{Name: "x", URL: s.URL + tt.path})
			if err != nil {
				t.Fatal(err)
			}
			if res.Kind != tt.kind || res.URL != s.URL+tt.url {
				t.Errorf("got kind %q at %s, want %q at %s", res.Kind, res.URL, tt.kind, s.URL+tt.url)
			}
			if tt.kind == "website" && (len(web.got) != 1 || web.got[0] != s.URL+tt.path) {
				t.Errorf("the website kind got %v", web.got)
			}
			w := env.Warnings()
			switch {
			case tt.warn == "" && len(w) != 0:
				t.Errorf("warned %q", w)
			case tt.warn != "" && (len(w) != 1 || !strings.Contains(w[0], strings.ReplaceAll(tt.warn, "{{base}}", s.URL))):
				t.Errorf("warnings got %q, want one with %q", w, tt.warn)
			}
			if tt.path == "/blog/" && !strings.Contains(w[0], s.URL+"/comments.atom") {
				t.Errorf("the warning does not list the other feed: %q", w[0])
			}
		})
	}
	// Named explicitly, the kind does not fall through: it fails.
	env := sourcetest.NewEnv(t)
	reg, web := registry()
	if _, err := reg.Ingest(t.Context(), env.Env, "feed", source.Input{Name: "x", URL: s.URL + "/feed"}); err == nil || !strings.Contains(err.Error(), "names no feed") || len(web.got) != 0 {
		t.Errorf("kind feed on a page: %v, website got %v", err, web.got)
	}
	// Named, a page's one feed is taken, and of several the first, with a
	// warning.
	for path, want := range map[string]string{"/one/": "/deep/feed.json", "/blog/": "/blog/posts.xml"} {
		env := sourcetest.NewEnv(t)
		res, err := reg.Ingest(t.Context(), env.Env, "feed", source.Input{Name: "x", URL: s.URL + path})
		if w := env.Warnings(); err != nil || res.URL != s.URL+want || path == "/blog/" && (len(w) != 1 || !strings.Contains(w[0], "taking the first")) {
			t.Errorf("kind feed on %s: %+v, %v, warnings %q", path, res, err, w)
		}
	}
	// A chooser picks among the feeds: here the second, which is
	// missing, so the website kind takes the page after a warning.
	var offered bool
	env.ChooseFeed = func(page string, feeds []string, orSite bool) (int, error) { offered = orSite; return 1, nil }
	res, err := reg.Ingest(t.Context(), env.Env, "", source.Input{Name: "x", URL: s.URL + "/blog/"})
	if w := env.Warnings(); err != nil || res.Kind != "website" || len(w) != 1 || !strings.Contains(w[0], "comments.atom") || !offered {
		t.Errorf("chosen missing feed: %+v, %v, warnings %q, the site offered %v", res, err, w, offered)
	}
	// Or the site: the page is crawled, without a word.
	web.got = nil
	env.ChooseFeed = func(page string, feeds []string, orSite bool) (int, error) { return -1, nil }
	res, err = reg.Ingest(t.Context(), env.Env, "", source.Input{Name: "x", URL: s.URL + "/one/"})
	if w := env.Warnings(); err != nil || res.Kind != "website" || len(w) != 1 || len(web.got) != 1 {
		t.Errorf("chosen the site: %+v, %v, warnings %q, website got %v", res, err, w, web.got)
	}
	env.ChooseFeed = func(page string, feeds []string, orSite bool) (int, error) { return 0, errors.New("no terminal") }
	if _, err := reg.Ingest(t.Context(), env.Env, "", source.Input{Name: "x", URL: s.URL + "/blog/"}); err == nil || !strings.Contains(err.Error(), "no terminal") {
		t.Errorf("a chooser's error: %v", err)
	}
}

// A page robots.txt disallows is not fetched to look for feeds: the
// website kind takes it (and, crawling, refuses it). A URL that looks
// like a feed is fetched without robots.txt, as feed readers do; so is a
// page under a kind named feed.
func TestProbeHeedsRobots(t *testing.T) {
	s := newSite(t)
	s.set("/robots.txt", page{typ: "text/plain", body: "User-agent: *\nDisallow: /private/\n"})
	s.set("/private/", page{typ: "text/html", body: `<html><head><link rel="alternate" type="application/rss+xml" href="/private/feed.xml"></head></html>`})
	s.set("/private/feed.xml", page{typ: "application/rss+xml", body: fixture(t, "rss2.xml")})
	env := sourcetest.NewEnv(t)
	reg, web := registry()
	res, err := reg.Ingest(t.Context(), env.Env, "", source.Input{Name: "x", URL: s.URL + "/private/"})
	if err != nil || res.Kind != "website" || len(env.Warnings()) != 0 {
		t.Fatalf("%+v, %v, warnings %q", res, err, env.Warnings())
	}
	for _, r := range s.requests() {
		if r.URL.Path == "/private/" {
			t.Errorf("the page robots.txt disallows was fetched")
		}
	}
	if len(web.got) != 1 {
		t.Errorf("the website kind got %v", web.got)
	}
	if res, err := reg.Ingest(t.Context(), env.Env, "", source.Input{Name: "y", URL: s.URL + "/private/feed.xml"}); err != nil || res.Kind != "feed" {
		t.Errorf("a feed by its URL: %+v, %v", res, err)
	}
	if res, err := reg.Ingest(t.Context(), env.Env, "feed", source.Input{Name: "z", URL: s.URL + "/private/"}); err != nil || res.URL != s.URL+"/private/feed.xml" {
		t.Errorf("a page under the kind named feed: %+v, %v", res, err)
	}
}

// Only the media types of feeds name a feed: application/json is any
// JSON.
func TestDiscoverTypes(t *testing.T) {
	page := `<head><link rel=alternate type=application/json href=/wp-json/><link rel=alternate type="application/feed+json" href=/feed.json>
		<link rel=alternate type=application/rdf+xml href=/rdf><link rel=alternate type=application/atom+xml href=/atom></head>`
	got := Discover([]byte(page), "https://e.com/")
	if strings.Join(got, " ") != "https://e.com/feed.json https://e.com/rdf https://e.com/atom" {
		t.Errorf("got %q", got)
	}
}

func TestResyncKeepsItems(t *testing.T) {
	s := newSite(t)
	feed := func(items ...string) string {
		return `<?xml version="1.0"?><rss version="2.0"><channel><title>Quay</title><link>https://quay.example.com/</link><description>d</description>` +
			strings.Join(items, "") + `</channel></rss>`
	}
	item := func(n int, day int) string {
		return fmt.Sprintf("<item><title>Post %d</title><link>https://quay.example.com/%d</link><pubDate>%s</pubDate><description>Text %d.</description></item>",
			n, n, time.Date(2026, 1, day, 0, 0, 0, 0, time.UTC).Format(time.RFC1123Z), n)
	}
	s.set("/feed.xml", page{typ: "application/rss+xml", etag: `"v1"`, body: feed(item(2, 2), item(1, 1))})
	env := sourcetest.NewEnv(t)
	reg, _ := registry()
	in := source.Input{Name: "quay", URL: s.URL + "/feed.xml"}
	res, err := reg.Ingest(t.Context(), env.Env, "feed", in)
	if err != nil || res.Items != 2 || res.New != 2 {
		t.Fatalf("first sync: %+v, %v", res, err)
	}
	// Unchanged: a conditional request, answered 304.
	res, err = reg.Ingest(t.Context(), env.Env, "feed", in)
	reqs := s.requests()
	if err != nil || !res.NotModified || reqs[len(reqs)-1].Header.Get("If-None-Match") != `"v1"` {
		t.Fatalf("second sync: %+v, %v, If-None-Match %q", res, err, reqs[len(reqs)-1].Header.Get("If-None-Match"))
	}
	// Post 1 leaves the feed, post 3 arrives: the snapshot keeps all three.
	s.set("/feed.xml", page{typ: "application/rss+xml", etag: `"v2"`, body: feed(item(3, 3), item(2, 2))})
	res, err = reg.Ingest(t.Context(), env.Env, "feed", in)
	if err != nil || res.Items != 3 || res.New != 1 || !res.Changed {
		t.Fatalf("third sync: %+v, %v", res, err)
	}
	snap, _ := env.Store.Get(t.Context(), in.URL)
	var titles []string
	for _, sec := range Sections(snap.Markdown) {
		titles = append(titles, strings.SplitN(sec.text, "\n", 2)[0])
	}
	if got := strings.Join(titles, "|"); got != "## Post 3|## Post 2|## Post 1" {
		t.Errorf("items got %s, want posts 3, 2, 1", got)
	}
	if snap.ETag != `"v2"` {
		t.Errorf("etag got %q", snap.ETag)
	}
	// Another source's copy of the same feed is not merged into this one.
	other := source.Input{Name: "other", URL: in.URL}
	s.set("/feed.xml", page{typ: "application/rss+xml", body: feed(item(4, 4))})
	res, err = reg.Ingest(t.Context(), env.Env, "feed", other)
	if err != nil || res.Items != 1 {
		t.Errorf("another source: %+v, %v", res, err)
	}
}

func TestSectionsRoundTrip(t *testing.T) {
	items := []Item{
		{Title: "Fenced", Link: "https://e.com/1", Date: time.Date(2026, 1, 2, 0, 0, 0, 0, time.UTC),
			Markdown: "# Big\n\n```\n## inside a fence\n```\n\n~~~~\n```\n## still inside\n~~~~\n\n## Small"},
		{Title: "", ID: "urn:2", Markdown: "No title, no date."},
		{Title: "Dated", Link: "https://e.com/3", Date: time.Date(2026, 1, 3, 0, 0, 0, 0, time.UTC), Markdown: "x"},
	}
	md, total, fresh := Document("# Feed about things", items, "")
	if total != 3 || fresh != 3 {
		t.Errorf("got %d items, %d new", total, fresh)
	}
	secs := Sections(md)
	if len(secs) != 3 {
		t.Fatalf("got %d sections from\n%s", len(secs), md)
	}
	if !strings.HasPrefix(md, "### Feed about things\n\n## Dated") {
		t.Errorf("preamble or order wrong:\n%s", md)
	}
	for _, want := range []string{"### Big", "## inside a fence", "## still inside", "#### Small"} {
		if !strings.Contains(secs[1].text, want) {
			t.Errorf("section lacks %q:\n%s", want, secs[1].text)
		}
	}
	if secs[2].key != "id urn:2" || secs[0].key != "id https://e.com/3" {
		t.Errorf("keys got %q, %q", secs[0].key, secs[2].key)
	}
	// Written again with no items, the old ones are all kept, unchanged.
	again, total, fresh := Document("# Feed about things", nil, md)
	if again != md || total != 3 || fresh != 0 {
		t.Errorf("re-rendered differently (%d, %d):\n%s\n---\n%s", total, fresh, again, md)
	}
}

func TestSlug(t *testing.T) {
	for in, want := range map[string]string{
		"https://blog.example.com/feed.xml":         "blog-example-com-feed-xml",
		"https://www.example.com/":                  "example-com",
		"http://example.com:8080/a/b.rss?tag=go":    "example-com-8080-a-b-rss-tag-go",
		"https://ÉTÉ.example/ünï":                   "t-example-c3-bcn-c3-af",
		"https://e.com/" + strings.Repeat("a", 200): "e-com-" + strings.Repeat("a", 74) + "-",
	} {
		u, _ := url.Parse(in)
		got := Slug(u)
		if strings.HasSuffix(want, "-") {
			if !strings.HasPrefix(got, want) || len(got) > 100 {
				t.Errorf("Slug(%q) got %q, want %q and a hash", in, got, want)
			}
			continue
		}
		if got != want {
			t.Errorf("Slug(%q) got %q, want %q", in, got, want)
		}
	}
}

// FuzzRead checks that any feed is read or refused, never a panic; that
// every string read and the snapshot are valid UTF-8; that the snapshot
// is at most MaxGrowth times the feed; and that it reads back as the same
// items.
func FuzzRead(f *testing.F) {
	for _, name := range []string{"rss2.xml", "rss091.xml", "rdf.xml", "atom.xml", "feed.json", "billion-laughs.xml", "latin1.xml"} {
		f.Add([]byte(fixture(f, name)))
	}
	f.Add([]byte(`{"version":"https://jsonfeed.org/version/1","items":[{"id":1}]}`))
	f.Add([]byte(`{"version":"https://jsonfeed.org/version/1.1","home_page_url":"https://e.com/dddddddddddddddddddddddddddddd/","items":[{"url":"a","content_html":"<table><tr><td>a<td>b<td>c<tr><td>d<tr><td>e</table>"},{"url":"b"}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		feed, err := Read(data, "https://fuzz.example/feed", 5)
		if err != nil {
			return
		}
		if len(feed.Items) > 5 {
			t.Errorf("%d items over the limit", len(feed.Items))
		}
		md, total, _ := Document(feed.Description, feed.Items, "")
		if s := invalidString(feed, md); s != "" {
			t.Errorf("invalid UTF-8 in %s", s)
		}
		if len(md) > MaxGrowth*len(data) {
			t.Errorf("a snapshot of %d bytes from a feed of %d:\n%s", len(md), len(data), md)
		}
		// What was written reads back as the same items.
		if got := len(Sections(md)); got != total {
			t.Errorf("wrote %d items, read back %d:\n%s", total, got, md)
		}
	})
}

// A JSON Feed's null entries are dropped: gofeed's translator would
// dereference them.
func TestJSONFeedNullEntries(t *testing.T) {
	for d, want := range map[string]int{
		`{"version":"https://jsonfeed.org/version/1.1","items":[null]}`:                                       0,
		`{"version":"https://jsonfeed.org/version/1.1","items":[{"id":"1"},null]}`:                            1,
		`{"version":"https://jsonfeed.org/version/1.1","items":[null, {"id":"1"}, null, {"id":"2"}]}`:         2,
		`{"version":"https://jsonfeed.org/version/1.1","authors":[null],"items":[{"id":"1"}]}`:                1,
		`{"version":"https://jsonfeed.org/version/1.1","items":[{"id":"1","authors":[null,{"name":"Ann"}]}]}`: 1,
		`{"version":"https://jsonfeed.org/version/1.1","items":[{"id":"1","attachments":[null]}]}`:            1,
		`{"version":"https://jsonfeed.org/version/1.1","hubs":[null],"items":[{"id":"1"}]}`:                   1,
		`{"version":"https://jsonfeed.org/version/1","author":null,"items":[{"id":"1","author":null}]}`:       1,
	} {
		f, err := Read([]byte(d), "https://e.com/", 5)
		if err != nil {
			t.Errorf("Read(%s): %v", d, err)
			continue
		}
		if len(f.Items) != want {
			t.Errorf("Read(%s): %d items, want %d", d, len(f.Items), want)
		}
		if strings.Contains(d, "Ann") && f.Items[0].Author != "Ann" {
			t.Errorf("Read(%s): author %q", d, f.Items[0].Author)
		}
	}
}

// The cut keeps the newest items by date, whatever their order in the
// feed, the undated after the dated in the feed's order, and what lies
// between and after the items.
func TestCutKeepsTheNewest(t *testing.T) {
	day := func(d int) time.Time { return time.Date(2026, 1, d, 0, 0, 0, 0, time.UTC) }
	var b strings.Builder
	b.WriteString(`<?xml version="1.0"?><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns="http://purl.org/rss/1.0/" xmlns:dc="http://purl.org/dc/elements/1.1/"><channel rdf:about="https://e.com/"><title>Late title</title><link>https://e.com/</link><description>d</description></channel>`)
	order := []int{5, 1, 9, 0, 7, 3, 0, 8, 2, 6, 4} // 0: undated
	for i, d := range order {
		date := ""
		if d > 0 {
			date = "<dc:date>" + day(d).Format(time.RFC3339) + "</dc:date>"
		}
		fmt.Fprintf(&b, "<item rdf:about=\"https://e.com/%d\"><title>T%d-%d</title><link>https://e.com/%d</link>%s<!-- <item> --><description><![CDATA[<p>a </item> in text</p>]]></description></item>\n", i, i, d, i, date)
	}
	b.WriteString(`<textinput><title>search</title></textinput></rdf:RDF>`)
	for limit, want := range map[int][]string{
		3:  {"T2-9", "T7-8", "T4-7"},
		10: {"T2-9", "T7-8", "T4-7", "T9-6", "T0-5", "T10-4", "T5-3", "T8-2", "T1-1", "T3-0"},
		11: {"T2-9", "T7-8", "T4-7", "T9-6", "T0-5", "T10-4", "T5-3", "T8-2", "T1-1", "T3-0", "T6-0"},
	} {
		f, err := Read([]byte(b.String()), "https://e.com/", limit)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, it := range f.Items {
			got = append(got, it.Title)
		}
		if strings.Join(got, " ") != strings.Join(want, " ") || f.Title != "Late title" {
			t.Errorf("limit %d: got %q (title %q), want %q", limit, got, f.Title, want)
		}
	}
	// Atom and JSON Feed likewise.
	atom := `<?xml version="1.0"?><feed xmlns="http://www.w3.org/2005/Atom"><title>A</title>` +
		`<entry><title>old</title><id>1</id><updated>2026-01-01T00:00:00Z</updated></entry>` +
		`<entry><title>new</title><id>2</id><published>2026-01-03T00:00:00Z</published><updated>2025-01-01T00:00:00Z</updated></entry>` +
		`<entry><title>mid</title><id>3</id><updated>2026-01-02T00:00:00Z</updated></entry></feed>`
	json := `{"version":"https://jsonfeed.org/version/1.1","title":"J","items":[` +
		`{"id":"1","title":"old","date_published":"2026-01-01T00:00:00Z"},null,` +
		`{"id":"2","title":"new","date_published":"2026-01-03T00:00:00Z"},` +
		`{"id":"3","title":"mid","date_modified":"2026-01-02T00:00:00Z"}],"user_comment":"after"}`
	for _, doc := range []string{atom, json} {
		f, err := Read([]byte(doc), "https://e.com/", 2)
		if err != nil {
			t.Fatal(err)
		}
		if len(f.Items) != 2 || f.Items[0].Title != "new" || f.Items[1].Title != "mid" {
			t.Errorf("got %+v", f.Items)
		}
	}
}

// A feed of a million empty items is cut before gofeed sees it (the
// benchmark BenchmarkReadTinyItems measures the memory).
func TestCutTinyItems(t *testing.T) {
	for _, body := range [][]byte{tinyItems("<item/>"), tinyItems("<entry/>"), tinyItems("{}")} {
		f, err := Read(body, "https://e.com/", 50)
		if err != nil {
			t.Fatal(err)
		}
		if len(f.Items) != 50 {
			t.Errorf("%d items", len(f.Items))
		}
	}
}

// tinyItems is a feed of items just under MaxBytes: RSS for "<item/>",
// Atom for "<entry/>", JSON Feed for "{}".
func tinyItems(item string) []byte {
	var b strings.Builder
	head, tail, sep := `<?xml version="1.0"?><rss version="2.0"><channel><title>t</title>`, "</channel></rss>", ""
	switch item {
	case "<entry/>":
		head, tail = `<?xml version="1.0"?><feed xmlns="http://www.w3.org/2005/Atom"><title>t</title>`, "</feed>"
	case "{}":
		head, tail, sep = `{"version":"https://jsonfeed.org/version/1.1","title":"t","items":[{}`, "]}", ","
	}
	b.WriteString(head)
	for b.Len() < MaxBytes-100 {
		b.WriteString(sep + item)
	}
	b.WriteString(tail)
	return []byte(b.String())
}

// XML that reaches out in any way (entities, parameter entities, a DTD, a
// stylesheet, XInclude) is read without a request and without its entities.
func TestNoRequestsFromXML(t *testing.T) {
	var hits atomic.Int32
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { hits.Add(1); fmt.Fprint(w, "PWNED") }))
	defer s.Close()
	docs := []string{
		`<?xml version="1.0"?><!DOCTYPE rss [<!ENTITY xxe SYSTEM "file:///etc/passwd">]><rss version="2.0"><channel><title>&xxe;</title><item><title>&xxe;</title><description>&xxe;</description></item></channel></rss>`,
		`<?xml version="1.0"?><!DOCTYPE rss [<!ENTITY xxe SYSTEM "` + s.URL + `/e">]><rss version="2.0"><channel><title>&xxe;</title><item><title>&xxe;</title></item></channel></rss>`,
		`<?xml version="1.0"?><!DOCTYPE rss [<!ENTITY % p SYSTEM "` + s.URL + `/p"> %p;]><rss version="2.0"><channel><title>t</title><item><title>i</title></item></channel></rss>`,
		`<?xml version="1.0"?><!DOCTYPE rss SYSTEM "` + s.URL + `/dtd"><rss version="2.0"><channel><title>t</title><item><title>i</title></item></channel></rss>`,
		`<?xml version="1.0"?><?xml-stylesheet href="` + s.URL + `/xsl"?><feed xmlns="http://www.w3.org/2005/Atom" xmlns:xi="http://www.w3.org/2001/XInclude"><title>t</title><entry><title>e</title><content type="xhtml"><div xmlns="http://www.w3.org/1999/xhtml"><xi:include href="` + s.URL + `/xi"/><img src="` + s.URL + `/img"/></div></content></entry></feed>`,
	}
	for i, d := range docs {
		f, err := Read([]byte(d), "https://e.com/", 5)
		if err != nil {
			continue
		}
		md, _, _ := Document(f.Description, f.Items, "")
		if strings.Contains(md, "root:") || strings.Contains(md, "PWNED") {
			t.Errorf("%d: expanded: %s", i, md)
		}
	}
	if hits.Load() != 0 {
		t.Errorf("the parser fetched %d times", hits.Load())
	}
}

// A code block inside a list item (an ordinary how-to post) is code to
// the section reader too: the items after it stay items, and those that
// left the feed are kept.
func TestListCodeBlockKeepsOlderItems(t *testing.T) {
	s := newSite(t)
	feed := func(items ...string) string {
		return `<?xml version="1.0"?><rss version="2.0"><channel><title>Quay</title><link>https://quay.example.com/</link><description>d</description>` +
			strings.Join(items, "") + `</channel></rss>`
	}
	item := func(n, day int, html string) string {
		return fmt.Sprintf("<item><title>Post %d</title><link>https://quay.example.com/%d</link><pubDate>%s</pubDate><description><![CDATA[%s]]></description></item>",
			n, n, time.Date(2026, 1, day, 0, 0, 0, 0, time.UTC).Format(time.RFC1123Z), html)
	}
	howto := `<p>Install:</p><ul><li><pre><code>go install example.com/tool@latest</code></pre></li><li>then run it.</li></ul>`
	s.set("/feed.xml", page{typ: "application/rss+xml", body: feed(item(3, 3, howto), item(2, 2, "<p>Two.</p>"), item(1, 1, "<p>One.</p>"))})
	env := sourcetest.NewEnv(t)
	reg, _ := registry()
	in := source.Input{Name: "quay", URL: s.URL + "/feed.xml"}
	if res, err := reg.Ingest(t.Context(), env.Env, "feed", in); err != nil || res.Items != 3 {
		t.Fatalf("first sync: %+v, %v", res, err)
	}
	// Posts 1 and 2 leave the feed; post 4 arrives. All four are kept.
	s.set("/feed.xml", page{typ: "application/rss+xml", body: feed(item(4, 4, "<p>Four.</p>"), item(3, 3, howto))})
	res, err := reg.Ingest(t.Context(), env.Env, "feed", in)
	if err != nil {
		t.Fatal(err)
	}
	snap, _ := env.Store.Get(t.Context(), in.URL)
	for _, want := range []string{"## Post 4", "## Post 3", "## Post 2", "## Post 1"} {
		if !strings.Contains(snap.Markdown, want) {
			t.Errorf("second sync lost %q (items %d, new %d):\n%s", want, res.Items, res.New, snap.Markdown)
		}
	}
}

// Demote leaves code in a list item as it is, and keeps the indentation
// of the headings it moves.
func TestDemoteKeepsCodeInListItems(t *testing.T) {
	md := toMarkdown("<ul><li><pre><code># install it\nmake install</code></pre></li></ul><p>After the list.</p>", "https://e.com/")
	if got := Demote(md); got != md {
		t.Errorf("Demote changed code inside a list item:\n--- before\n%s\n--- after\n%s", md, got)
	}
	for in, want := range map[string]string{
		"- item\n\n  # Big":                      "- item\n\n  ### Big",
		"> ```\n> # code\n\n# Big":               "> ```\n> # code\n\n### Big", // the quote ended, and its code
		"- ```\n  # code\n# Big\n  ```":          "- ```\n  # code\n### Big\n  ```\n```",
		"````\n```\n# code\n````\n# Big":         "````\n```\n# code\n````\n### Big",
		"~~~\n# code\n~~\n# still code":          "~~~\n# code\n~~\n# still code\n~~~",
		"   ```\n# code\n   ```\n## Big":         "   ```\n# code\n   ```\n#### Big",
		"    ```\n# Big":                         "    ```\n### Big", // indented code, not a fence
		"1. one\n2. ```\n   # code\n   ```\n# x": "1. one\n2. ```\n   # code\n   ```\n### x",
	} {
		if got := Demote(in); got != want {
			t.Errorf("Demote(%q) = %q, want %q", in, got, want)
		}
	}
}

// FuzzResync: whatever an item's HTML, the items of the last snapshot
// that the feed no longer lists are kept by the next sync.
func FuzzResync(f *testing.F) {
	f.Add("<p>plain</p>", "Title")
	f.Add("<pre>```\n## x</pre>", "Code")
	f.Add("<ol><li>a<pre>b</pre></li></ol>", "List")
	f.Add("<blockquote><pre>x</pre></blockquote>", "Quote")
	f.Add("<ul><li><pre><code>go install</code></pre></li><li>then</li></ul>", "How-to")
	f.Fuzz(func(t *testing.T, html, title string) {
		if len(html) > 2000 || len(title) > 200 {
			return
		}
		day := func(d int) time.Time { return time.Date(2026, 1, d, 0, 0, 0, 0, time.UTC) }
		a := Item{Title: text(title), Link: "https://e.com/a", Date: day(3), Markdown: toMarkdown(html, "https://e.com/")}
		b := Item{Title: "Bee", Link: "https://e.com/b", Date: day(2), Markdown: "bee"}
		c := Item{Title: "Sea", Link: "https://e.com/c", Date: day(1), Markdown: "sea"}
		first, n, _ := Document("", []Item{a, b, c}, "")
		if n != 3 {
			return
		}
		second, _, _ := Document("", []Item{a}, first)
		if !strings.Contains(second, "## Bee") || !strings.Contains(second, "## Sea") {
			t.Errorf("an older item was lost:\nhtml %q\n--- first\n%s\n--- second\n%s", html, first, second)
		}
	})
}

// FuzzSectionsRoundTrip: items of any Markdown and any title, with a
// preamble of any Markdown, written into a snapshot, read back as the
// same items, and written again the same.
func FuzzSectionsRoundTrip(f *testing.F) {
	f.Add("- ```\n  ## x\n  ```", "T", "pre")
	f.Add("> ```\n## x", "T\r## y", "```")
	f.Add("1. a\n   ~~~~\n## x\n   ~~~", "T", "- ```")
	f.Fuzz(func(t *testing.T, md, title, preamble string) {
		day := func(d int) time.Time { return time.Date(2026, 1, d, 0, 0, 0, 0, time.UTC) }
		items := []Item{
			{Title: text(title), Link: "https://e.com/a", Date: day(3), Markdown: md},
			{Title: "Bee", Link: "https://e.com/b", Date: day(2), Markdown: md},
			{Title: "Sea", Link: "https://e.com/c", Date: day(1), Markdown: "sea"},
		}
		doc, n, _ := Document(preamble, items, "")
		secs := Sections(doc)
		if len(secs) != n {
			t.Fatalf("wrote %d items, read back %d:\n%s", n, len(secs), doc)
		}
		for i, s := range secs {
			if want := items[i].section(); s.key != want.key || s.text != want.text {
				t.Errorf("item %d read back as %q, not %q", i, s.text, want.text)
			}
		}
		if again, _, _ := Document(preamble, nil, doc); again != doc {
			t.Errorf("written again differently:\n%s\n---\n%s", doc, again)
		}
	})
}

// Item titles and authors are plain text in the snapshot: no HTML, no
// live link (the extractor removes them from the item's content), no
// Markdown structure.
func TestTitleAndAuthorArePlainText(t *testing.T) {
	body := `<?xml version="1.0"?><rss version="2.0"><channel><title>t</title>
<item><title><![CDATA[<b>Hi</b> &lt;script&gt;alert(1)&lt;/script&gt;]]></title><link>https://e.com/1</link></item>
<item><title>[Read more](javascript:alert(document.cookie))</title><link>https://e.com/2</link><author>x@e.com ([me](javascript:alert(2)))</author></item>
<item><title>Hello &lt;img src=x onerror=alert(3)&gt;</title><link>https://e.com/3</link></item>
<item><title>Setext
===</title><link>https://e.com/4</link><author>## Post</author></item>
</channel></rss>`
	f, err := Read([]byte(body), "https://e.com/feed", 0)
	if err != nil {
		t.Fatal(err)
	}
	md, _, _ := Document(f.Description, f.Items, "")
	// What is left of the tags is escaped text, never live HTML or links.
	for _, bad := range []string{`(^|[^\\])<(script|img|/)`, `(^|[^\\])\]\(`, `(^|[^\\])\[`} {
		if regexp.MustCompile(bad).MatchString(md) {
			t.Errorf("the snapshot matches %q:\n%s", bad, md)
		}
	}
	for _, want := range []string{"## Hi \\<script>alert(1)\\</script>", "## \\[Read more\\](javascript:alert(document.cookie))", "- Author: \\[me\\](javascript:alert(2))", "## Hello\n", "## Setext ===", "- Author: \\## Post"} {
		if !strings.Contains(md, want) {
			t.Errorf("the snapshot lacks %q:\n%s", want, md)
		}
	}
}

// Two different feeds whose URLs differ only in punctuation get the same
// slug, but never one file: each reads back its own snapshot, and
// removing one source leaves the other's.
func TestSlugCollisionKeepsSourcesApart(t *testing.T) {
	s := newSite(t)
	rss := func(title, word string) string {
		return `<?xml version="1.0"?><rss version="2.0"><channel><title>` + title + `</title><item><title>` + word + `</title><link>https://e.com/` + word + `</link></item></channel></rss>`
	}
	s.set("/feed.xml", page{typ: "application/rss+xml", body: rss("Harbour", "herring")})
	s.set("/feed-xml", page{typ: "application/rss+xml", body: rss("Moor", "heather")})
	env := sourcetest.NewEnv(t)
	reg, _ := registry()
	a, err := reg.Ingest(t.Context(), env.Env, "feed", source.Input{Name: "harbour", URL: s.URL + "/feed.xml"})
	if err != nil {
		t.Fatal(err)
	}
	b, err := reg.Ingest(t.Context(), env.Env, "feed", source.Input{Name: "moor", URL: s.URL + "/feed-xml"})
	if err != nil {
		t.Fatal(err)
	}
	if a.Snapshot.Path == b.Snapshot.Path {
		t.Errorf("two sources' feeds share one file: %s", a.Snapshot.Path)
	}
	got, err := env.Store.Get(t.Context(), s.URL+"/feed.xml")
	if err != nil || !strings.Contains(got.Markdown, "herring") {
		t.Errorf("the harbour feed's snapshot now reads: %v\n%+v", err, got)
	}
	if _, err := env.Stash.Remove(t.Context(), "moor"); err != nil {
		t.Fatal(err)
	}
	if _, err := env.Store.Get(t.Context(), s.URL+"/feed.xml"); err != nil {
		t.Errorf("removing the moor source broke the harbour source's snapshot: %v", err)
	}
}

// TestJSONFeedSpellings: a JSON Feed is one whatever its version says of
// it (http:// as JSON Feed 1's examples have it, or none but the shape of
// a feed), and whatever Content-Type it is served with.
func TestJSONFeedSpellings(t *testing.T) {
	for _, body := range []string{
		`{"version":"http://jsonfeed.org/version/1","title":"Tides","home_page_url":"https://e.com/","items":[{"id":"1","url":"https://e.com/1","title":"Neap","content_text":"Quarter moons."}]}`,
		`{"version":"https://JSONFeed.org/version/1.1","title":"Tides","items":[{"id":"1","url":"https://e.com/1","title":"Neap","content_text":"Quarter moons."}]}`,
		`{"title":"Tides","feed_url":"https://e.com/feed.json","items":[{"id":"1","url":"https://e.com/1","title":"Neap","content_text":"Quarter moons."}]}`,
	} {
		if !Sniff([]byte(body)) {
			t.Errorf("not taken for a feed: %s", body)
			continue
		}
		f, err := Read([]byte(body), "https://e.com/feed.json", 0)
		if err != nil || len(f.Items) != 1 || f.Items[0].Title != "Neap" {
			t.Errorf("Read(%.60s…): %+v, %v", body, f, err)
		}
	}
	for _, body := range []string{`{"title":"a page"}`, `{"items":[1,2]}`, `[{"title":"x","home_page_url":"y","items":[]}]`} {
		if Sniff([]byte(body)) {
			t.Errorf("JSON that is no feed taken for one: %s", body)
		}
	}
}
