package cli

import (
	"bytes"
	"fmt"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/heedhq/heed/internal/crawlopt"
	"github.com/heedhq/heed/internal/source/kinds"
)

func TestAddAndSync(t *testing.T) {
	t.Setenv("HEED_STASH", "") // the config names the stash
	s, robotsHits := exampleSite(t)
	dir := t.TempDir()
	conf := filepath.Join(dir, "config.yaml")
	os.WriteFile(conf, []byte("# my sources\nallow_net: [127.0.0.1/32] # the test site\nstash: "+filepath.Join(dir, "stash")+"\n"), 0o644)
	base := []string{"--config", conf}

	code, out, stderr := run(t, "", append([]string{"add", s.URL + "/", "--name", "tide", "--delay", "0", "--exclude", "/guide/safety.html"}, base...)...)
	if code != 0 || !strings.HasPrefix(out, "3 stored") || !strings.Contains(stderr, `recorded source "tide"`) {
		t.Fatalf("add: exit %d\n%s\n%s", code, out, stderr)
	}
	data, _ := os.ReadFile(conf)
	for _, want := range []string{"# my sources", "# the test site", "tide:", "url: " + s.URL + "/", "delay: 0s", "exclude:"} {
		if !strings.Contains(string(data), want) {
			t.Errorf("config lacks %q:\n%s", want, data)
		}
	}
	if code, _, stderr := run(t, "", append([]string{"add", s.URL + "/", "--name", "tide"}, base...)...); code != 2 || !strings.Contains(stderr, "heed sync tide") {
		t.Errorf("adding twice: exit %d, %s", code, stderr)
	}
	code, out, _ = run(t, "", append([]string{"sync"}, base...)...)
	if code != 0 || !strings.Contains(out, "tide:\n0 stored (0 new, 0 changed), 3 unchanged") {
		t.Errorf("sync: exit %d\n%s", code, out)
	}
	if code, _, stderr := run(t, "", append([]string{"sync", "nope"}, base...)...); code != 2 || !strings.Contains(stderr, `no source named "nope"`) {
		t.Errorf("sync unknown: exit %d, %s", code, stderr)
	}
	// respect_robots: false in the config makes no robots.txt request.
	before := *robotsHits
	os.WriteFile(conf, []byte("allow_net: [127.0.0.1/32]\nstash: "+filepath.Join(dir, "stash2")+"\nsources:\n  tide:\n    url: "+s.URL+"/\n    respect_robots: false\n    delay: 0s\n"), 0o644)
	if code, out, _ := run(t, "", append([]string{"sync", "tide"}, base...)...); code != 0 || !strings.Contains(out, "5 stored") {
		t.Errorf("sync without robots: exit %d\n%s", code, out)
	}
	if *robotsHits != before {
		t.Errorf("robots.txt requested with respect_robots: false")
	}
}

// TestAddMaxDepthZero: heed add --max-depth 0 crawls the start URL only,
// and records max_depth: 0, so that heed sync crawls it alone too, not
// as deep as the default.
func TestAddMaxDepthZero(t *testing.T) {
	t.Setenv("HEED_STASH", "") // the config names the stash
	s, _ := exampleSite(t)
	dir := t.TempDir()
	conf := filepath.Join(dir, "config.yaml")
	os.WriteFile(conf, []byte("allow_net: [127.0.0.1/32]\nstash: "+filepath.Join(dir, "stash")+"\n"), 0o644)
	code, out, stderr := run(t, "", "add", s.URL+"/", "--name", "front", "--max-depth", "0", "--delay", "0", "--config", conf)
	if code != 0 || !strings.HasPrefix(out, "1 stored (1 new, 0 changed), 0 unchanged") {
		t.Fatalf("add --max-depth 0: exit %d\n%s\n%s", code, out, stderr)
	}
	if data, _ := os.ReadFile(conf); !strings.Contains(string(data), "    max_depth: 0\n") {
		t.Errorf("the source recorded:\n%s", data)
	}
	code, out, stderr = run(t, "", "sync", "front", "--config", conf)
	if code != 0 || !strings.Contains(out, "front:\n0 stored (0 new, 0 changed), 1 unchanged") {
		t.Errorf("sync of max_depth: 0: exit %d\n%s\n%s", code, out, stderr)
	}
}

func TestConfigErrorsExit78(t *testing.T) {
	conf := filepath.Join(t.TempDir(), "config.yaml")
	os.WriteFile(conf, []byte("sources:\n  docs:\n    url: https://docs.example.com/\n    respect_robots: \"no\"\n"), 0o644)
	for _, args := range [][]string{{"sync"}, {"search", "x"}, {"fetch", "https://example.com/"}, {"crawl", "https://example.com/"}} {
		code, out, stderr := run(t, "", append(args, "--config", conf)...)
		if code != 78 || out != "" || !strings.Contains(stderr, conf+":4: sources.docs.respect_robots: must be true or false") {
			t.Errorf("heed %v with a bad config: exit %d, %q, %s", args, code, out, stderr)
		}
	}
	// Commands that need no config do not read it.
	if code, _, _ := run(t, "User-agent: *\n", "robots", "fmt", "--config", conf); code != 0 {
		t.Errorf("robots fmt read the config: exit %d", code)
	}
}

// services answers on loopback like a blog's feed, the Bluesky AppView
// and the X API v2, with a post in each about a different animal of the
// shore, so that search can tell them apart.
func services(t *testing.T, token string) *httptest.Server {
	t.Helper()
	mux := http.NewServeMux()
	mux.HandleFunc("/blog/feed.xml", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("ETag", `"f1"`)
		if r.Header.Get("If-None-Match") == `"f1"` {
			w.WriteHeader(http.StatusNotModified)
			return
		}
		w.Header().Set("Content-Type", "application/rss+xml")
		fmt.Fprint(w, `<?xml version="1.0"?><rss version="2.0"><channel><title>Shore Diary</title><link>https://shore.example.com/</link><description>Notes</description>
<item><title>Oystercatchers at dawn</title><link>https://shore.example.com/oystercatchers</link><pubDate>Mon, 02 Mar 2026 06:00:00 GMT</pubDate><description><![CDATA[<p>A pair of <b>oystercatchers</b> probing the mud.</p>]]></description></item>
</channel></rss>`)
	})
	mux.HandleFunc("/xrpc/com.atproto.identity.resolveHandle", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `{"did":"did:plc:alicexyz"}`)
	})
	mux.HandleFunc("/xrpc/app.bsky.actor.getProfile", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `{"did":"did:plc:alicexyz","handle":"alice.example.com","displayName":"Alice","description":"Rock pools","followersCount":1,"followsCount":2,"postsCount":1}`)
	})
	mux.HandleFunc("/xrpc/app.bsky.feed.getAuthorFeed", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("ratelimit-remaining", "2999")
		fmt.Fprint(w, `{"feed":[{"post":{"uri":"at://did:plc:alicexyz/app.bsky.feed.post/3kstar","cid":"bafy","author":{"did":"did:plc:alicexyz","handle":"alice.example.com"},
"record":{"$type":"app.bsky.feed.post","text":"A starfish in the rock pool","createdAt":"2026-03-01T10:00:00.000Z"},"replyCount":0,"repostCount":0,"likeCount":3,"quoteCount":0,"indexedAt":"2026-03-01T10:00:00.000Z"}}]}`)
	})
	mux.HandleFunc("/2/", func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer "+token {
			w.WriteHeader(http.StatusUnauthorized)
			fmt.Fprint(w, `{"title":"Unauthorized","detail":"Unauthorized","status":401}`)
			return
		}
		w.Header().Set("x-rate-limit-remaining", "99")
		switch r.URL.Path {
		case "/2/users/by/username/tidewatch":
			fmt.Fprint(w, `{"data":{"id":"42","name":"Tide Watch","username":"tidewatch","description":"token holder `+token+`","public_metrics":{"followers_count":5,"following_count":1,"tweet_count":1}}}`)
		case "/2/users/42/tweets":
			fmt.Fprint(w, `{"data":[{"id":"7","text":"Seals hauled out on the sandbank","created_at":"2026-03-03T09:00:00.000Z","public_metrics":{"retweet_count":0,"reply_count":0,"like_count":8,"quote_count":0}}],"meta":{"result_count":1}}`)
		default:
			w.WriteHeader(http.StatusNotFound)
		}
	})
	s := httptest.NewServer(mux)
	t.Cleanup(s.Close)
	return s
}

func TestAddFeedBlueskyAndX(t *testing.T) {
	const token = "AAAAAAAAAAAAAAAAAAAAAcliTestBearerToken0123456789"
	for _, k := range []string{"HEED_STASH", "X_BEARER_TOKEN", "X_RSS_TEMPLATE", "HEED_BLUESKY_API_BASE", "HEED_X_API_BASE"} {
		t.Setenv(k, "")
	}
	t.Setenv("SHORE_X_TOKEN", token)
	s := services(t, token)
	dir := t.TempDir()
	conf := filepath.Join(dir, "config.yaml")
	stashDir := filepath.Join(dir, "stash")
	os.WriteFile(conf, []byte("allow_net: [127.0.0.1/32]\nstash: "+stashDir+"\nbluesky:\n  api_base: "+s.URL+"\nx:\n  api_base: "+s.URL+"\n  bearer_token: env:SHORE_X_TOKEN\n"), 0o644)
	base := []string{"--config", conf}
	var said strings.Builder // everything heed printed
	heed := func(args ...string) (int, string) {
		t.Helper()
		code, out, stderr := run(t, "", append(args, base...)...)
		said.WriteString(out + stderr)
		return code, out + stderr
	}

	if code, out := heed("add", s.URL+"/blog/feed.xml"); code != 0 || !strings.Contains(out, "feed "+s.URL+"/blog/feed.xml: 1 item, 1 new") {
		t.Fatalf("add feed: exit %d\n%s", code, out)
	}
	if code, out := heed("add", "https://bsky.app/profile/alice.example.com"); code != 0 || !strings.Contains(out, "bluesky/alice.example.com.md") || !strings.Contains(out, `recorded source "bluesky-alice.example.com" (bluesky,`) {
		t.Fatalf("add bluesky: exit %d\n%s", code, out)
	}
	if code, out := heed("add", "https://x.com/tidewatch", "--json"); code != 0 || !strings.Contains(out, `"kind":"x"`) || !strings.Contains(out, `"path":"x/tidewatch.md"`) {
		t.Fatalf("add x: exit %d\n%s", code, out)
	}
	for word, want := range map[string]string{"oystercatchers": "Shore Diary", "starfish": "Alice (@alice.example.com) on Bluesky", "seals": "Tide Watch (@tidewatch) on X"} {
		code, out := heed("search", word)
		if code != 0 || !strings.Contains(out, want) {
			t.Errorf("search %s: exit %d\n%s", word, code, out)
		}
	}
	if code, out := heed("search", "--json", "seals"); code != 0 || !strings.Contains(out, `"source":"x-tidewatch"`) {
		t.Errorf("search --json: exit %d\n%s", code, out)
	}
	data, _ := os.ReadFile(conf)
	for _, want := range []string{"kind: feed", "kind: bluesky", "kind: x", "bearer_token: env:SHORE_X_TOKEN"} {
		if !strings.Contains(string(data), want) {
			t.Errorf("config lacks %q:\n%s", want, data)
		}
	}
	// Sync goes by the recorded kinds: the feed answers 304.
	code, out := heed("sync")
	if code != 0 || !strings.Contains(out, "feed "+s.URL+"/blog/feed.xml: not modified") || !strings.Contains(out, "x https://x.com/tidewatch: 1 item") {
		t.Errorf("sync: exit %d\n%s", code, out)
	}
	if code, out := heed("show", "https://x.com/tidewatch", "--json"); code != 0 || !strings.Contains(out, "Seals hauled out") {
		t.Errorf("show: exit %d\n%s", code, out)
	}
	// The token is nowhere: not in what heed said, the config, the stash's
	// files, its log or its index.
	if leak := leakedPart(said.String(), token); leak != "" {
		t.Errorf("heed printed %q of the token", leak)
	}
	for _, root := range []string{dir} {
		filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				if b, _ := os.ReadFile(path); leakedPart(string(b), token) != "" {
					t.Errorf("%s holds the token", path)
				}
			}
			return nil
		})
	}
	// A bad token reference is a configuration error, for X sources.
	os.WriteFile(conf, []byte("allow_net: [127.0.0.1/32]\nstash: "+stashDir+"\nx:\n  api_base: "+s.URL+"\n  bearer_token: env:UNSET_TOKEN_VAR\nsources:\n  tw:\n    url: https://x.com/tidewatch\n    kind: x\n"), 0o644)
	if code, out := heed("sync", "tw"); code != 78 || !strings.Contains(out, "UNSET_TOKEN_VAR is empty or not set") {
		t.Errorf("sync with a broken token reference: exit %d\n%s", code, out)
	}
}

// leakedPart returns a part of the secret of 8 bytes or more that s
// holds, or "".
func leakedPart(s, secret string) string {
	for i := 0; i+8 <= len(secret); i++ {
		if strings.Contains(s, secret[i:i+8]) {
			return secret[i : i+8]
		}
	}
	return ""
}

// docsSite is a documentation site whose pages, like those of most site
// generators (Hugo, Jekyll, Docusaurus, WordPress), name the site's blog
// feed in their head.
func docsSite(t *testing.T) *httptest.Server {
	mux := http.NewServeMux()
	head := `<head><title>Docs</title><link rel="alternate" type="application/rss+xml" title="Blog" href="/blog/feed.xml"></head>`
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		switch r.URL.Path {
		case "/":
			fmt.Fprint(w, `<!doctype html><html>`+head+`<body><main><h1>Docs</h1><p>Start with the <a href="/guide/install.html">install guide</a>.</p></main></body></html>`)
		case "/guide/install.html":
			fmt.Fprint(w, `<!doctype html><html>`+head+`<body><main><h1>Install</h1><p>Run the anemometer installer.</p></main></body></html>`)
		default:
			http.NotFound(w, r)
		}
	})
	mux.HandleFunc("/blog/feed.xml", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/rss+xml")
		fmt.Fprint(w, `<?xml version="1.0"?><rss version="2.0"><channel><title>Blog</title><item><title>Release 2.0</title><link>https://docs.example.com/blog/2</link></item></channel></rss>`)
	})
	s := httptest.NewServer(mux)
	t.Cleanup(s.Close)
	return s
}

// heed add of a documentation site with crawl settings records a
// website with the settings, not a feed of the blog its pages name; and
// without settings, not on a terminal, it crawls the site too, listing
// the feeds.
func TestAddWithCrawlFlagsIsAWebsite(t *testing.T) {
	for _, k := range []string{"HEED_STASH", "X_BEARER_TOKEN", "X_RSS_TEMPLATE", "HEED_BLUESKY_API_BASE", "HEED_X_API_BASE"} {
		t.Setenv(k, "")
	}
	s := docsSite(t)
	dir := t.TempDir()
	conf := filepath.Join(dir, "config.yaml")
	os.WriteFile(conf, []byte("allow_net: [127.0.0.1/32]\nstash: "+filepath.Join(dir, "stash")+"\n"), 0o644)
	code, out, stderr := run(t, "", "add", s.URL+"/", "--name", "docs", "--include", "/guide/**", "--max-pages", "20", "--delay", "0", "--config", conf)
	data, _ := os.ReadFile(conf)
	if code != 0 || !strings.Contains(string(data), "kind: website") || !strings.Contains(string(data), "/guide/**") {
		t.Errorf("add: exit %d\n%s\n%s\nconfig:\n%s", code, out, stderr, data)
	}
	if code, out, _ := run(t, "", "search", "anemometer", "--config", conf); code != 0 {
		t.Errorf("the docs were not crawled: exit %d %s", code, out)
	}
	// Naming a kind beside crawl settings is a mistake.
	if code, _, stderr := run(t, "", "add", s.URL+"/", "--name", "docs2", "--kind", "feed", "--max-pages", "2", "--config", conf); code != 2 || !strings.Contains(stderr, "--max-pages is a website's setting") {
		t.Errorf("--kind feed --max-pages: exit %d %s", code, stderr)
	}
	// The same URL under another name is refused: two sources of one
	// URL would take each other's pages.
	for _, same := range []string{s.URL + "/", s.URL, strings.Replace(s.URL, "http://", "HTTP://", 1) + "/#top"} {
		if code, _, stderr := run(t, "", "add", same, "--name", "docs3", "--config", conf); code != 2 || !strings.Contains(stderr, `is already recorded as source "docs"`) {
			t.Errorf("the same URL (%s) under another name: exit %d %s", same, code, stderr)
		}
	}
	conf = filepath.Join(dir, "other.yaml")
	os.WriteFile(conf, []byte("allow_net: [127.0.0.1/32]\nstash: "+filepath.Join(dir, "stash")+"\n"), 0o644)
	code, out, stderr = run(t, "", "add", s.URL+"/", "--name", "docs3", "--config", conf)
	data, _ = os.ReadFile(conf)
	if code != 0 || !strings.Contains(stderr, "naming a feed; crawling it as a website. To follow the feed instead:\n  heed add "+s.URL+"/blog/feed.xml") ||
		!strings.Contains(string(data), "docs3:\n    url: "+s.URL+"/\n    kind: website") {
		t.Errorf("add without settings: exit %d\n%s\n%s\nconfig:\n%s", code, out, stderr, data)
	}
}

// A hand-written source without kind: (the config documents it as
// optional, and heed sync crawled such sources before) is crawled as a
// website, not guessed again.
func TestSyncOfSourceWithoutKind(t *testing.T) {
	for _, k := range []string{"HEED_STASH", "X_BEARER_TOKEN", "X_RSS_TEMPLATE", "HEED_BLUESKY_API_BASE", "HEED_X_API_BASE"} {
		t.Setenv(k, "")
	}
	s := docsSite(t)
	dir := t.TempDir()
	conf := filepath.Join(dir, "config.yaml")
	os.WriteFile(conf, []byte("allow_net: [127.0.0.1/32]\nstash: "+filepath.Join(dir, "stash")+"\nsources:\n  docs:\n    url: "+s.URL+"/\n    delay: 0s\n"), 0o644)
	code, out, stderr := run(t, "", "sync", "docs", "--config", conf)
	if code != 0 {
		t.Fatalf("sync: exit %d\n%s\n%s", code, out, stderr)
	}
	if code, out, _ := run(t, "", "search", "anemometer", "--config", conf); code != 0 {
		t.Errorf("sync did not crawl the docs: exit %d %s\nsync said:\n%s", code, out, out)
	}
}

// heed add of a page robots.txt disallows does not fetch the page to look
// for feeds: the website kind refuses it, with exit 2.
func TestAddDoesNotFetchADisallowedPage(t *testing.T) {
	for _, k := range []string{"HEED_STASH", "X_BEARER_TOKEN", "X_RSS_TEMPLATE", "HEED_BLUESKY_API_BASE", "HEED_X_API_BASE"} {
		t.Setenv(k, "")
	}
	var pageHits int
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/robots.txt":
			fmt.Fprint(w, "User-agent: *\nDisallow: /private/\n")
		case "/private/":
			pageHits++
			w.Header().Set("Content-Type", "text/html")
			fmt.Fprint(w, `<!doctype html><html><head><title>Private</title></head><body><p>Keep out.</p></body></html>`)
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(s.Close)
	dir := t.TempDir()
	conf := filepath.Join(dir, "config.yaml")
	os.WriteFile(conf, []byte("allow_net: [127.0.0.1/32]\nstash: "+filepath.Join(dir, "stash")+"\n"), 0o644)
	code, out, stderr := run(t, "", "add", s.URL+"/private/", "--name", "p", "--config", conf)
	if pageHits != 0 || code != 2 || !strings.Contains(stderr, "may not be crawled") {
		t.Errorf("a page robots.txt disallows was fetched %d times (exit %d)\n%s\n%s", pageHits, code, out, stderr)
	}
}

// heed add of a web page that names no feed asks robots.txt once: the
// page probed for feeds and the crawl that follows share what robots.txt
// said.
func TestAddAsksRobotsOnce(t *testing.T) {
	t.Setenv("HEED_STASH", "")
	s, robotsHits := exampleSite(t)
	dir := t.TempDir()
	conf := filepath.Join(dir, "config.yaml")
	os.WriteFile(conf, []byte("allow_net: [127.0.0.1/32]\nstash: "+filepath.Join(dir, "stash")+"\n"), 0o644)
	code, out, stderr := run(t, "", "add", s.URL+"/", "--name", "tide", "--config", conf)
	// The crawl heeded what the probe's robots.txt said: the draft it
	// disallows is skipped.
	if code != 0 || !strings.Contains(out, "1 skipped (1 robots)") {
		t.Fatalf("add: exit %d\n%s\n%s", code, out, stderr)
	}
	if *robotsHits != 1 {
		t.Errorf("robots.txt fetched %d times for one add, want 1", *robotsHits)
	}
}

// heed sync of a feed source, then a website source: the website's crawl
// keeps its own delay (2 s) after its robots.txt, not the feed's (0 s):
// what one source's ingest shares with its crawl is not another's.
func TestSyncSourcesKeepTheirOwnSchedule(t *testing.T) {
	for _, k := range []string{"HEED_STASH", "X_BEARER_TOKEN", "X_RSS_TEMPLATE", "HEED_BLUESKY_API_BASE", "HEED_X_API_BASE"} {
		t.Setenv(k, "")
	}
	feedSrv := services(t, "tok")
	var mu sync.Mutex
	var robotsAt, pageAt time.Time
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		if r.URL.Path != "/robots.txt" && pageAt.IsZero() {
			pageAt = time.Now()
		}
		switch r.URL.Path {
		case "/robots.txt":
			robotsAt = time.Now()
			fmt.Fprint(w, "User-agent: *\nAllow: /\n")
		case "/":
			w.Header().Set("Content-Type", "text/html")
			fmt.Fprint(w, `<!doctype html><html><head><title>Home</title></head><body><p>Hello there, this is a page.</p></body></html>`)
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(site.Close)
	dir := t.TempDir()
	conf := filepath.Join(dir, "config.yaml")
	os.WriteFile(conf, []byte("allow_net: [127.0.0.1/32]\nstash: "+filepath.Join(dir, "stash")+"\nsources:\n  a:\n    url: "+feedSrv.URL+"/blog/feed.xml\n    kind: feed\n    delay: 0s\n  b:\n    url: "+site.URL+"/\n    kind: website\n    delay: 2s\n"), 0o644)
	if code, out, stderr := run(t, "", "sync", "--config", conf); code != 0 {
		t.Fatalf("sync: exit %d\n%s\n%s", code, out, stderr)
	}
	mu.Lock()
	defer mu.Unlock()
	if gap := pageAt.Sub(robotsAt); gap < 2*time.Second {
		t.Errorf("website b's next request came %v after its robots.txt, want >= 2s (b's delay)", gap)
	}
}

// heed add of a web page makes its requests to the host one at a time,
// spaced by the delay: robots.txt, the page probed for feeds, then the
// crawl's.
func TestAddSpacesItsRequests(t *testing.T) {
	t.Setenv("HEED_STASH", "")
	var mu sync.Mutex
	var at []time.Time
	var paths []string
	files := http.FileServer(http.Dir("../../examples/offline/site"))
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		at, paths = append(at, time.Now()), append(paths, r.URL.Path)
		mu.Unlock()
		files.ServeHTTP(w, r)
	}))
	t.Cleanup(s.Close)
	dir := t.TempDir()
	conf := filepath.Join(dir, "config.yaml")
	os.WriteFile(conf, []byte("allow_net: [127.0.0.1/32]\nstash: "+filepath.Join(dir, "stash")+"\n"), 0o644)
	if code, out, stderr := run(t, "", "add", s.URL+"/", "--name", "tide", "--config", conf); code != 0 {
		t.Fatalf("add: exit %d\n%s\n%s", code, out, stderr)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(paths) < 3 || paths[0] != "/robots.txt" || paths[1] != "/" {
		t.Fatalf("requests %v: want robots.txt, the page probed, then the crawl's", paths)
	}
	for i := 1; i < len(at); i++ {
		if gap := at[i].Sub(at[i-1]); gap < crawlopt.Defaults().Delay*9/10 {
			t.Errorf("%s came %v after %s, want the delay (%v) between", paths[i], gap, paths[i-1], crawlopt.Defaults().Delay)
		}
	}
}

// heed add of an http page that redirects to https on the same host: the
// probe asks the https origin's robots.txt on a turn of its own (it waited
// for the probe's own turn, forever, before), gives up on the page, and
// the crawl queues the redirect, which is out of scope, and says so.
func TestAddRedirectToHTTPSOnTheSameHost(t *testing.T) {
	t.Setenv("HEED_STASH", "")
	var srv *httptest.Server
	srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/robots.txt":
			fmt.Fprint(w, "User-agent: *\nAllow: /\n")
		default:
			http.Redirect(w, r, strings.Replace(srv.URL, "http://", "https://", 1)+r.URL.Path, http.StatusMovedPermanently)
		}
	}))
	t.Cleanup(srv.Close)
	dir := t.TempDir()
	conf := filepath.Join(dir, "config.yaml")
	os.WriteFile(conf, []byte("allow_net: [127.0.0.1/32]\nstash: "+filepath.Join(dir, "stash")+"\n"), 0o644)
	done := make(chan struct{})
	go func() {
		defer close(done)
		code, out, stderr := run(t, "", "add", srv.URL+"/blog", "--name", "b", "--config", conf, "-v")
		if code != 1 || !strings.Contains(out, "2 skipped (1 redirect, 1 scope)") || !strings.Contains(stderr, "another origin; queued") ||
			!strings.Contains(stderr, `source "b" stored nothing, so it is not recorded`) {
			t.Errorf("add: exit %d\n%s\n%s", code, out, stderr)
		}
		if data, _ := os.ReadFile(conf); strings.Contains(string(data), "b:") {
			t.Errorf("a source that stored nothing was recorded:\n%s", data)
		}
	}()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("heed add hangs on an http to https redirect")
	}
}

// TestAddWithoutATerminal: heed add of a page naming feeds asks which to
// follow only on a terminal. Standard input at /dev/null (a character
// device, but no terminal) is not one: the site is crawled, the feeds
// listed, and nothing prompts or fails.
func TestAddWithoutATerminal(t *testing.T) {
	t.Setenv("HEED_STASH", "")
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/feed.xml":
			w.Header().Set("Content-Type", "application/rss+xml")
			fmt.Fprint(w, `<?xml version="1.0"?><rss version="2.0"><channel><title>F</title><link>http://e.com/</link><description>d</description></channel></rss>`)
		case "/robots.txt":
		default:
			fmt.Fprint(w, `<html><head><title>Blog</title><link rel="alternate" type="application/rss+xml" href="/feed.xml"></head><body><main><p>A blog with words enough to be content.</p></main></body></html>`)
		}
	}))
	t.Cleanup(s.Close)
	devnull, err := os.Open(os.DevNull)
	if err != nil {
		t.Fatal(err)
	}
	defer devnull.Close()
	dir := t.TempDir()
	conf := filepath.Join(dir, "config.yaml")
	os.WriteFile(conf, []byte("allow_net: [127.0.0.1/32]\nstash: "+filepath.Join(dir, "stash")+"\n"), 0o644)
	var out, stderr bytes.Buffer
	code := Run(t.Context(), []string{"add", s.URL + "/", "--name", "blog", "--config", conf}, devnull, &out, &stderr)
	if code != 0 || strings.Contains(stderr.String(), "Which one") || strings.Contains(stderr.String(), "no feed chosen") || !strings.Contains(out.String(), "stored") {
		t.Errorf("heed add with standard input at /dev/null: exit %d\n%s\n%s", code, out.String(), stderr.String())
	}
	// The feeds are listed, each with the command that follows it.
	if !strings.Contains(stderr.String(), "naming a feed") || !strings.Contains(stderr.String(), "\n  heed add "+s.URL+"/feed.xml\n") {
		t.Errorf("heed add without a terminal does not list the page's feed with heed add FEEDURL:\n%s", stderr.String())
	}
}

// TestTwoFeedsOfOneHost: two feeds of one host added without --name get
// a name each, their slugs (as their snapshots' files have), where both
// were named after the host and the second was refused.
func TestTwoFeedsOfOneHost(t *testing.T) {
	t.Setenv("HEED_STASH", "")
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/rss+xml")
		fmt.Fprintf(w, `<?xml version="1.0"?><rss version="2.0"><channel><title>%s</title><link>http://e.com/</link><description>d</description><item><title>One</title><link>http://e.com/1</link></item></channel></rss>`, r.URL.Path)
	}))
	t.Cleanup(s.Close)
	dir := t.TempDir()
	conf := filepath.Join(dir, "config.yaml")
	os.WriteFile(conf, []byte("allow_net: [127.0.0.1/32]\nstash: "+filepath.Join(dir, "stash")+"\n"), 0o644)
	for _, p := range []string{"/news/feed.xml", "/blog/feed.xml", "/a/feed.json", "/b/feed.json"} {
		if code, out, stderr := run(t, "", "add", s.URL+p, "--config", conf); code != 0 {
			t.Fatalf("add %s: exit %d\n%s\n%s", p, code, out, stderr)
		}
	}
	data, _ := os.ReadFile(conf)
	port := strings.Split(s.URL, ":")[2]
	// A feed whose URL does not look like one is named after its host
	// first, and by its slug once the host's name is taken.
	for _, name := range []string{"127-0-0-1-" + port + "-news-feed-xml:", "127-0-0-1-" + port + "-blog-feed-xml:", "127.0.0.1_" + port + ":", "127-0-0-1-" + port + "-b-feed-json:"} {
		if !strings.Contains(string(data), name) {
			t.Errorf("the config lacks %s\n%s", name, data)
		}
	}
}

// TestAddJSONFeedServedAsJSON: a JSON Feed served as application/json,
// declaring the version as JSON Feed 1's examples do (http://), is a
// feed, not a website that stores nothing.
func TestAddJSONFeedServedAsJSON(t *testing.T) {
	t.Setenv("HEED_STASH", "")
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/robots.txt" {
			return
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"version":"http://jsonfeed.org/version/1","title":"Tides","home_page_url":"http://e.com/","items":[{"id":"1","url":"http://e.com/1","title":"Neap tides","content_text":"At the quarter moons."}]}`)
	}))
	t.Cleanup(s.Close)
	dir := t.TempDir()
	conf := filepath.Join(dir, "config.yaml")
	os.WriteFile(conf, []byte("allow_net: [127.0.0.1/32]\nstash: "+filepath.Join(dir, "stash")+"\n"), 0o644)
	code, out, stderr := run(t, "", "add", s.URL+"/updates", "--name", "tides", "--config", conf)
	data, _ := os.ReadFile(conf)
	if code != 0 || !strings.Contains(out, "feed ") || !strings.Contains(string(data), "kind: feed") {
		t.Errorf("add of a JSON Feed served as application/json: exit %d\n%s\n%s\n%s", code, out, stderr, data)
	}
}

// TestAddSaysSyncNeedsTheNetwork: a source added with --allow-net, which
// the config file does not record, would fail a later plain heed sync:
// heed add says so.
func TestAddSaysSyncNeedsTheNetwork(t *testing.T) {
	t.Setenv("HEED_STASH", "")
	s, _ := exampleSite(t)
	dir := t.TempDir()
	conf := filepath.Join(dir, "config.yaml")
	os.WriteFile(conf, []byte("stash: "+filepath.Join(dir, "stash")+"\n"), 0o644)
	code, _, stderr := run(t, "", "add", s.URL+"/", "--name", "tides", "--delay", "0s", "--allow-net", "127.0.0.1/32", "--config", conf)
	if code != 0 || !strings.Contains(stderr, "heed sync of this source needs --allow-net 127.0.0.1/32 too") {
		t.Errorf("add with --allow-net the config lacks: exit %d\n%s", code, stderr)
	}
	os.WriteFile(conf, []byte("allow_net: [127.0.0.1/32]\nstash: "+filepath.Join(dir, "stash2")+"\n"), 0o644)
	if code, _, stderr := run(t, "", "add", s.URL+"/", "--name", "tides", "--delay", "0s", "--allow-net", "127.0.0.1/32", "--config", conf); code != 0 || strings.Contains(stderr, "needs --allow-net") {
		t.Errorf("add with --allow-net the config has: exit %d\n%s", code, stderr)
	}
}

// TestSyncHintsAreSettings: heed sync has no crawl flags, so what raises
// a recorded source's limit is its setting in the config file.
func TestSyncHintsAreSettings(t *testing.T) {
	t.Setenv("HEED_STASH", "")
	s, _ := exampleSite(t)
	dir := t.TempDir()
	conf := filepath.Join(dir, "config.yaml")
	os.WriteFile(conf, []byte("allow_net: [127.0.0.1/32]\nstash: "+filepath.Join(dir, "stash")+"\nsources:\n  tides:\n    url: "+s.URL+"/\n    max_pages: 1\n    delay: 0s\n"), 0o644)
	code, _, stderr := run(t, "", "sync", "--config", conf)
	if code != 0 || !strings.Contains(stderr, "(max_pages in the source's config raises it)") || strings.Contains(stderr, "--max-pages") {
		t.Errorf("sync of a source at its max_pages: exit %d\n%s", code, stderr)
	}
}

// TestAddHelpListsTheKinds: heed add's help and its --kind flag are
// written from the one list of kinds, each with its help.
func TestAddHelpListsTheKinds(t *testing.T) {
	_, out, _ := run(t, "", "add", "--help")
	for _, k := range kinds.All {
		first, _, _ := strings.Cut(k.Help, "\n")
		if !strings.Contains(out, fmt.Sprintf("  %-8s %s", k.Name, first)) {
			t.Errorf("heed add --help does not list the kind %s with its help %q", k.Name, first)
		}
	}
	if !strings.Contains(out, "the kind of source: "+strings.Join(kinds.Names(), ", ")) {
		t.Errorf("--kind's help does not name the kinds %v:\n%s", kinds.Names(), out)
	}
}

// TestMissingConfigFlag: a config file named with --config that is not
// there is an error (exit 78) for every command that reads the config,
// not a config with no sources.
func TestMissingConfigFlag(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "typo.yaml")
	for _, args := range [][]string{{"ls"}, {"sync"}, {"add", "https://example.com/"}, {"fetch", "https://example.com/"}, {"search", "x"}} {
		code, out, stderr := run(t, "", append(args, "--config", missing)...)
		if code != 78 || out != "" || !strings.Contains(stderr, "--config "+missing+": no such file") {
			t.Errorf("heed %v --config MISSING: exit %d, %q, %q", args, code, out, stderr)
		}
	}
	if _, err := os.Stat(missing); err == nil {
		t.Errorf("the missing config file was made")
	}
}

// TestAddRefusedIsFinal: heed add of a loopback URL without --allow-net is
// refused by the network guard, and the refusal is the answer: it is not
// passed on to the next kind of source to fail as a robots.txt error, and
// nothing reaches the site.
func TestAddRefusedIsFinal(t *testing.T) {
	t.Setenv("HEED_STASH", "")
	var hits int
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { hits++ }))
	t.Cleanup(s.Close)
	dir := t.TempDir()
	conf := filepath.Join(dir, "config.yaml")
	os.WriteFile(conf, []byte("stash: "+filepath.Join(dir, "stash")+"\n"), 0o644)
	code, out, stderr := run(t, "", "add", s.URL+"/docs/", "--config", conf)
	if code != ExitFailed || out != "" || !strings.Contains(stderr, "heed: add "+s.URL+"/docs/: refused: 127.0.0.1 is a loopback address") ||
		!strings.Contains(stderr, "pass --allow-net 127.0.0.0/8") || strings.Contains(stderr, "robots.txt") || strings.Contains(stderr, "may not be crawled") {
		t.Errorf("heed add of loopback without --allow-net: exit %d, %q, %q; want the refusal, exit 1", code, out, stderr)
	}
	if hits != 0 {
		t.Errorf("the site saw %d requests", hits)
	}
	if data, _ := os.ReadFile(conf); strings.Contains(string(data), "sources") {
		t.Errorf("a refused source was recorded:\n%s", data)
	}
}
