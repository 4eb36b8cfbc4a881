package bluesky

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/heedhq/heed/internal/source"
	"github.com/heedhq/heed/internal/source/sourcetest"
)

// appView answers like the public AppView (com.atproto.identity.resolveHandle,
// app.bsky.actor.getProfile, app.bsky.feed.getAuthorFeed) for one account
// with n posts, numbered n-1 (newest) down to 0.
type appView struct {
	*httptest.Server
	mu    sync.Mutex
	n     int
	reqs  []url.URL
	hook  func(w http.ResponseWriter, r *http.Request) bool // true: answered
	posts func(i int) map[string]any
}

const aliceDID = "did:plc:alice2x7qkq4zq5sw4kb3m"

func newAppView(t *testing.T, n int) *appView {
	a := &appView{n: n}
	a.posts = a.post
	a.Server = httptest.NewServer(http.HandlerFunc(a.serve))
	t.Cleanup(a.Close)
	return a
}

func (a *appView) requests() []url.URL {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]url.URL(nil), a.reqs...)
}

func xrpcErr(w http.ResponseWriter, status int, name, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(map[string]string{"error": name, "message": msg})
}

func (a *appView) serve(w http.ResponseWriter, r *http.Request) {
	a.mu.Lock()
	a.reqs = append(a.reqs, *r.URL)
	hook := a.hook
	a.mu.Unlock()
	if hook != nil && hook(w, r) {
		return
	}
	q := r.URL.Query()
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	switch r.URL.Path {
	case "/xrpc/com.atproto.identity.resolveHandle":
		if q.Get("handle") != "alice.example.com" {
			xrpcErr(w, 400, "InvalidRequest", "Unable to resolve handle")
			return
		}
		fmt.Fprintf(w, `{"did":%q}`, aliceDID)
	case "/xrpc/app.bsky.actor.getProfile":
		if q.Get("actor") != aliceDID && q.Get("actor") != "alice.example.com" {
			xrpcErr(w, 400, "InvalidRequest", "Profile not found")
			return
		}
		fmt.Fprintf(w, `{"did":%q,"handle":"alice.example.com","displayName":"Alice Marlin","description":"Sailor. Tide watcher.\n# not a heading","avatar":"https://cdn.example.com/a.jpg","followersCount":120,"followsCount":80,"postsCount":%d,"indexedAt":"2026-01-01T00:00:00.000Z","createdAt":"2024-05-01T00:00:00.000Z"}`, aliceDID, a.n)
	case "/xrpc/app.bsky.feed.getAuthorFeed":
		if q.Get("actor") != aliceDID {
			xrpcErr(w, 400, "InvalidRequest", "Profile not found")
			return
		}
		limit, err := strconv.Atoi(q.Get("limit"))
		if err != nil || limit < 1 || limit > 100 {
			xrpcErr(w, 400, "InvalidRequest", "limit must be 1 to 100")
			return
		}
		start := a.n - 1
		if c := q.Get("cursor"); c != "" {
			start, _ = strconv.Atoi(c)
		}
		var feed []map[string]any
		i := start
		for ; i >= 0 && len(feed) < limit; i-- {
			feed = append(feed, a.posts(i))
		}
		out := map[string]any{"feed": feed}
		if i >= 0 {
			out["cursor"] = strconv.Itoa(i)
		}
		json.NewEncoder(w).Encode(out)
	default:
		xrpcErr(w, 501, "MethodNotImplemented", "no such method")
	}
}

// post is post i, a plain one.
func (a *appView) post(i int) map[string]any {
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(i) * time.Hour).Format("2006-01-02T15:04:05.000Z")
	return map[string]any{"post": map[string]any{
		"uri": fmt.Sprintf("at://%s/app.bsky.feed.post/3k%04d", aliceDID, i), "cid": "bafyrei" + strconv.Itoa(i),
		"author":     map[string]any{"did": aliceDID, "handle": "alice.example.com", "displayName": "Alice Marlin"},
		"record":     map[string]any{"$type": "app.bsky.feed.post", "text": fmt.Sprintf("Low water number %d", i), "createdAt": at},
		"replyCount": 1, "repostCount": 2, "likeCount": i, "quoteCount": 0, "indexedAt": at,
	}}
}

func env(t *testing.T) *sourcetest.Env { return sourcetest.NewEnv(t) }

func ingest(t *testing.T, e *sourcetest.Env, a *appView, rawURL string, limit int) (*source.Result, error) {
	t.Helper()
	reg := &source.Registry{Kinds: []source.Kind{Kind{APIBase: a.URL}}}
	return reg.Ingest(t.Context(), e.Env, "bluesky", source.Input{Name: "alice", URL: rawURL, Limit: limit})
}

func TestActor(t *testing.T) {
	for in, want := range map[string]string{
		"https://bsky.app/profile/alice.example.com":              "alice.example.com",
		"https://bsky.app/profile/alice.bsky.social/":             "alice.bsky.social",
		"https://bsky.app/profile/did:plc:alice2x7qkq4zq5sw4kb3m": "did:plc:alice2x7qkq4zq5sw4kb3m",
		"https://www.bsky.app/profile/bob.example":                "bob.example",
		"https://bsky.app/profile/alice.example.com/post/3k1":     "",
		"https://bsky.app/profile/":                               "",
		"https://bsky.app/profile/nodots":                         "",
		"https://bsky.app/search?q=x":                             "",
		"https://example.com/profile/alice.example.com":           "",
		"https://bsky.app/profile/bad_under.example.com":          "",
	} {
		u, _ := url.Parse(in)
		got, ok := Actor(u)
		if got != want || ok != (want != "") {
			t.Errorf("Actor(%s) got %q, %v, want %q", in, got, ok, want)
		}
	}
}

func TestProfileAndPagination(t *testing.T) {
	a := newAppView(t, 230)
	e := env(t)
	res, err := ingest(t, e, a, "https://bsky.app/profile/alice.example.com", 150)
	if err != nil {
		t.Fatal(err)
	}
	if res.Items != 150 {
		t.Errorf("got %d posts, want 150", res.Items)
	}
	var feeds []url.Values
	for _, r := range a.requests() {
		if r.Path == "/xrpc/app.bsky.feed.getAuthorFeed" {
			feeds = append(feeds, r.Query())
		}
	}
	if len(feeds) != 2 || feeds[0].Get("limit") != "100" || feeds[0].Get("cursor") != "" ||
		feeds[1].Get("limit") != "50" || feeds[1].Get("cursor") != "129" {
		t.Errorf("getAuthorFeed requests got %v, want limit 100 without a cursor, then limit 50 with cursor 129", feeds)
	}
	snap, err := e.Store.Get(t.Context(), "https://bsky.app/profile/alice.example.com")
	if err != nil {
		t.Fatal(err)
	}
	if snap.Path != "bluesky/alice.example.com.md" || snap.Title != "Alice Marlin (@alice.example.com) on Bluesky" ||
		strings.Join(snap.Tags, ",") != "bluesky,social" {
		t.Errorf("snapshot %s, %q, %v", snap.Path, snap.Title, snap.Tags)
	}
	md := snap.Markdown
	for _, want := range []string{
		"Sailor. Tide watcher.\n\\# not a heading",
		"Followers: 120 · Following: 80 · Posts: 230",
		"## Post of 2026-01-10T13:00:00Z\n\n- Link: <https://bsky.app/profile/alice.example.com/post/3k0229>\n- Date: 2026-01-10T13:00:00Z\n- Likes: 229 · Reposts: 2 · Replies: 1 · Quotes: 0\n\nLow water number 229",
		"Low water number 80",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("the snapshot lacks %q", want)
		}
	}
	if strings.Contains(md, "Low water number 79") || strings.Count(md, "\n## ") != 150 {
		t.Errorf("the limit did not hold: %d posts", strings.Count(md, "\n## "))
	}
	// Fewer posts than the limit: the cursor runs out.
	b := newAppView(t, 30)
	if res, err := ingest(t, env(t), b, "https://bsky.app/profile/"+aliceDID, 100); err != nil || res.Items != 30 {
		t.Errorf("by DID, 30 posts: %+v, %v", res, err)
	}
	for _, r := range b.requests() {
		if r.Path == "/xrpc/com.atproto.identity.resolveHandle" {
			t.Errorf("a DID was resolved as a handle")
		}
	}
}

func TestRichPosts(t *testing.T) {
	text := "Héllo 🌊 see example.com/tides, #tides and @bob.example.com [sic]"
	idx := func(s string) map[string]int {
		i := strings.Index(text, s) // a byte index, as facets count
		return map[string]int{"byteStart": i, "byteEnd": i + len(s)}
	}
	a := newAppView(t, 4)
	a.posts = func(i int) map[string]any {
		p := a.post(i)
		post := p["post"].(map[string]any)
		rec := post["record"].(map[string]any)
		switch i {
		case 3: // facets and an external link
			rec["text"] = text
			rec["facets"] = []any{
				map[string]any{"index": idx("example.com/tides"), "features": []any{map[string]any{"$type": "app.bsky.richtext.facet#link", "uri": "https://example.com/tides"}}},
				map[string]any{"index": idx("#tides"), "features": []any{map[string]any{"$type": "app.bsky.richtext.facet#tag", "tag": "tides"}}},
				map[string]any{"index": idx("@bob.example.com"), "features": []any{map[string]any{"$type": "app.bsky.richtext.facet#mention", "did": "did:plc:bob"}}},
				map[string]any{"index": map[string]int{"byteStart": 2, "byteEnd": 3}, "features": []any{map[string]any{"$type": "app.bsky.richtext.facet#link", "uri": "https://split.example/"}}}, // splits é
				map[string]any{"index": map[string]int{"byteStart": 0, "byteEnd": 900}, "features": []any{map[string]any{"$type": "app.bsky.richtext.facet#link", "uri": "https://far.example/"}}},
				map[string]any{"index": idx("Héllo"), "features": []any{map[string]any{"$type": "app.bsky.richtext.facet#link", "uri": "javascript:alert(1)"}}},
			}
			post["embed"] = map[string]any{"$type": "app.bsky.embed.external#view", "external": map[string]any{
				"uri": "https://example.com/tides", "title": "Tide tables", "description": "When the water turns", "thumb": "https://cdn.example.com/t.jpg"}}
		case 2: // images and a quoted post, with media
			post["embed"] = map[string]any{"$type": "app.bsky.embed.recordWithMedia#view",
				"media": map[string]any{"$type": "app.bsky.embed.images#view", "images": []any{
					map[string]any{"thumb": "https://cdn.example.com/1.jpg", "fullsize": "https://cdn.example.com/1f.jpg", "alt": "A heron on a post"},
					map[string]any{"thumb": "https://cdn.example.com/2.jpg", "fullsize": "https://cdn.example.com/2f.jpg", "alt": ""}}},
				"record": map[string]any{"record": map[string]any{"$type": "app.bsky.embed.record#viewRecord",
					"uri": "at://did:plc:bob/app.bsky.feed.post/3kbob", "cid": "bafybob",
					"author": map[string]any{"did": "did:plc:bob", "handle": "bob.example.com", "displayName": "Bob"},
					"value":  map[string]any{"$type": "app.bsky.feed.post", "text": "Spring tide tonight", "createdAt": "2026-01-01T00:00:00Z"}, "indexedAt": "2026-01-01T00:00:00Z"}}}
		case 1: // a repost of someone else's post, quoting another
			post["author"] = map[string]any{"did": "did:plc:carol", "handle": "carol.example.com"}
			post["uri"] = "at://did:plc:carol/app.bsky.feed.post/3kcarol"
			rec["text"] = "Carol's harbour photo"
			p["reason"] = map[string]any{"$type": "app.bsky.feed.defs#reasonRepost", "by": map[string]any{"did": aliceDID, "handle": "alice.example.com"}, "indexedAt": "2026-01-02T00:00:00Z"}
			post["embed"] = map[string]any{"$type": "app.bsky.embed.record#view", "record": map[string]any{"$type": "app.bsky.embed.record#viewRecord",
				"uri": "at://did:plc:dan/app.bsky.feed.post/3kdan", "author": map[string]any{"did": "did:plc:dan", "handle": "dan.example.com"},
				"value": map[string]any{"text": "Original"}}}
		}
		return p
	}
	e := env(t)
	if _, err := ingest(t, e, a, "https://bsky.app/profile/alice.example.com", 50); err != nil {
		t.Fatal(err)
	}
	snap, _ := e.Store.Get(t.Context(), "https://bsky.app/profile/alice.example.com")
	for _, want := range []string{
		"Héllo 🌊 see [example.com/tides](https://example.com/tides), [#tides](https://bsky.app/hashtag/tides) and [@bob.example.com](https://bsky.app/profile/did:plc:bob) \\[sic\\]",
		"Link: [Tide tables](https://example.com/tides) — When the water turns",
		"Image 1: A heron on a post\n\nImage 2: (no alt text)",
		"> Quoting Bob (@bob.example.com) (<https://bsky.app/profile/bob.example.com/post/3kbob>):\n> \n> Spring tide tonight",
		"## Repost of @carol.example.com, 2026-01-01T01:00:00Z\n\n- Link: <https://bsky.app/profile/carol.example.com/post/3kcarol>\n- Date: 2026-01-01T01:00:00Z\n- Reposted by: @alice.example.com\n- Author: @carol.example.com",
		"> Quoting @dan.example.com (<https://bsky.app/profile/dan.example.com/post/3kdan>):\n> \n> Original",
	} {
		if !strings.Contains(snap.Markdown, want) {
			t.Errorf("the snapshot lacks\n%s\n--- got:\n%s", want, snap.Markdown)
		}
	}
	for _, not := range []string{"split.example", "far.example", "javascript:"} {
		if strings.Contains(snap.Markdown, not) {
			t.Errorf("a bad facet was linked: %s", not)
		}
	}
}

func TestHandleThatDoesNotResolveFallsThrough(t *testing.T) {
	a := newAppView(t, 3)
	e := env(t)
	web := &website{}
	// (No feed kind between: its probe of bsky.app would be refused by
	// the guard here, and a refusal is final.)
	reg := &source.Registry{Kinds: []source.Kind{Kind{APIBase: a.URL}, web}}
	res, err := reg.Ingest(t.Context(), e.Env, "", source.Input{Name: "nobody", URL: "https://bsky.app/profile/nobody.example.com"})
	if err != nil || res.Kind != "website" || len(web.got) != 1 {
		t.Fatalf("got %+v, %v; website got %v", res, err, web.got)
	}
	w := e.Warnings()
	if len(w) != 1 || !strings.Contains(w[0], "nobody.example.com does not resolve") || !strings.Contains(w[0], "Unable to resolve handle") {
		t.Errorf("warnings got %q, want one saying the handle does not resolve", w)
	}
	// Named as the kind, it is an error.
	if _, err := ingest(t, e, a, "https://bsky.app/profile/nobody.example.com", 10); err == nil || !strings.Contains(err.Error(), "does not resolve") {
		t.Errorf("kind bluesky: %v", err)
	}
	// A failing AppView is an error, not a fall-through.
	a.hook = func(w http.ResponseWriter, r *http.Request) bool {
		xrpcErr(w, 502, "UpstreamFailure", "down")
		return true
	}
	if _, err := reg.Ingest(t.Context(), e.Env, "", source.Input{Name: "alice", URL: "https://bsky.app/profile/alice.example.com"}); err == nil || !strings.Contains(err.Error(), "502") {
		t.Errorf("AppView down: %v", err)
	}
}

type website struct{ got []string }

func (w *website) Name() string          { return "website" }
func (w *website) Match(u *url.URL) bool { return true }
func (w *website) Ingest(_ context.Context, _ *source.Env, in source.Input) (*source.Result, error) {
	w.got = append(w.got, in.URL)
	return &source.Result{}, nil
}

func TestRateLimits(t *testing.T) {
	start := sourcetest.Start.Unix()
	a := newAppView(t, 150)
	var feedCalls int
	a.hook = func(w http.ResponseWriter, r *http.Request) bool {
		switch r.URL.Path {
		case "/xrpc/app.bsky.actor.getProfile":
			// The window is spent: the next request must wait 5 s.
			w.Header().Set("ratelimit-limit", "3000")
			w.Header().Set("ratelimit-remaining", "0")
			w.Header().Set("ratelimit-reset", strconv.FormatInt(start+5, 10))
		case "/xrpc/app.bsky.feed.getAuthorFeed":
			feedCalls++
			if feedCalls == 2 {
				// The second page is refused until 30 s after the first wait.
				w.Header().Set("ratelimit-remaining", "0")
				w.Header().Set("ratelimit-reset", strconv.FormatInt(start+35, 10))
				xrpcErr(w, 429, "RateLimitExceeded", "Rate Limit Exceeded")
				return true
			}
			w.Header().Set("ratelimit-remaining", "2999")
		}
		return false
	}
	e := env(t)
	res, err := ingest(t, e, a, "https://bsky.app/profile/alice.example.com", 150)
	if err != nil || res.Items != 150 {
		t.Fatalf("got %+v, %v", res, err)
	}
	if got := e.Waits(); len(got) != 2 || got[0] != 5*time.Second || got[1] != 30*time.Second {
		t.Errorf("waits got %v, want [5s 30s]", got)
	}
	if feedCalls != 3 {
		t.Errorf("getAuthorFeed called %d times, want 3 (a page, the 429, the page again)", feedCalls)
	}
	if w := e.Warnings(); len(w) != 2 || !strings.Contains(w[1], "429") {
		t.Errorf("warnings got %q", w)
	}

	// A reset further off than heed waits: the first page fails...
	a.hook = func(w http.ResponseWriter, r *http.Request) bool {
		w.Header().Set("ratelimit-remaining", "0")
		w.Header().Set("ratelimit-reset", strconv.FormatInt(start+3600, 10))
		xrpcErr(w, 429, "RateLimitExceeded", "Rate Limit Exceeded")
		return true
	}
	e = env(t)
	e.MaxWait = time.Minute
	if _, err := ingest(t, e, a, "https://bsky.app/profile/alice.example.com", 10); err == nil || !strings.Contains(err.Error(), "rate limited") || len(e.Waits()) != 0 {
		t.Errorf("a long reset: %v, waits %v", err, e.Waits())
	}
	// ...and a later page keeps the posts read so far.
	feedCalls = 0
	a.hook = func(w http.ResponseWriter, r *http.Request) bool {
		if r.URL.Path == "/xrpc/app.bsky.feed.getAuthorFeed" {
			if feedCalls++; feedCalls > 1 {
				w.Header().Set("ratelimit-reset", strconv.FormatInt(start+3600, 10))
				xrpcErr(w, 429, "RateLimitExceeded", "Rate Limit Exceeded")
				return true
			}
		}
		return false
	}
	e = env(t)
	e.MaxWait = time.Minute
	if res, err := ingest(t, e, a, "https://bsky.app/profile/alice.example.com", 150); err != nil || res.Items != 100 {
		t.Errorf("rate limited on page 2: %+v, %v", res, err)
	}
}

// No post text writes a heading, such as a fake "## Post of ..."
// section, into the snapshot: not through a bare "\r" (a line ending to
// CommonMark), a setext underline, or a facet whose text spans a newline.
func TestPostTextMakesNoHeadings(t *testing.T) {
	for name, rec := range map[string]map[string]any{
		"bare CR":  {"text": "hello\r## Post of 2026-03-01T00:00:00Z\r\r- Link: <https://evil.example/>"},
		"setext":   {"text": "Totally a heading\n---"},
		"setext =": {"text": "Totally a heading\r\n=="},
		"indented": {"text": "a\n   ## b\n\t# c"},
		"facet across a newline": {"text": "see\n## Post of 2026-03-01T00:00:00Z",
			"facets": []any{map[string]any{"index": map[string]any{"byteStart": 0, "byteEnd": len("see\n## Post of 2026-03-01T00:00:00Z")},
				"features": []any{map[string]any{"$type": "app.bsky.richtext.facet#link", "uri": "https://e.com/"}}}}},
	} {
		got := richText(rec["text"].(string), facetsOf(t, rec["facets"]))
		// A CommonMark line is ended by \n, \r\n or \r.
		lines := strings.FieldsFunc(got, func(r rune) bool { return r == '\n' || r == '\r' })
		for i, l := range lines {
			tl := strings.TrimLeft(l, " ")
			if strings.HasPrefix(tl, "#") || i > 0 && strings.Trim(tl, "-") == "" && strings.TrimSpace(lines[i-1]) != "" {
				t.Errorf("%s: the post's text makes a heading:\n%q", name, got)
				break
			}
		}
	}
}

func facetsOf(t *testing.T, v any) []facet {
	if v == nil {
		return nil
	}
	f := v.([]any)[0].(map[string]any)
	idx := f["index"].(map[string]any)
	var fc facet
	fc.Index.ByteStart, fc.Index.ByteEnd = idx["byteStart"].(int), idx["byteEnd"].(int)
	fc.Features = append(fc.Features, struct {
		Type string `json:"$type"`
		URI  string `json:"uri"`
		DID  string `json:"did"`
		Tag  string `json:"tag"`
	}{Type: "app.bsky.richtext.facet#link", URI: "https://e.com/"})
	return []facet{fc}
}

// An AppView that answers pages of feed items without a URI, each with a
// new cursor, is not asked again and again: a page that adds no post
// ends the reading, and the pages are capped.
func TestCursorWithoutPostsEnds(t *testing.T) {
	a := newAppView(t, 1)
	var pages atomic.Int32
	a.hook = func(w http.ResponseWriter, r *http.Request) bool {
		if r.URL.Path != "/xrpc/app.bsky.feed.getAuthorFeed" {
			return false
		}
		n := pages.Add(1)
		if n > 500 { // stop the test from spinning forever
			fmt.Fprint(w, `{"feed":[]}`)
			return true
		}
		fmt.Fprintf(w, `{"feed":[{"post":{"uri":""}}],"cursor":"c%d"}`, n)
		return true
	}
	e := env(t)
	if _, err := ingest(t, e, a, "https://bsky.app/profile/alice.example.com", 10); err != nil {
		t.Fatal(err)
	}
	if n := pages.Load(); n > 1 {
		t.Errorf("asked for %d pages to take 10 posts", n)
	}
}

// The same post on several pages is written once, and the page that
// adds nothing ends the reading.
func TestDuplicatePostsAcrossPages(t *testing.T) {
	a := newAppView(t, 3)
	var pages atomic.Int32
	a.hook = func(w http.ResponseWriter, r *http.Request) bool {
		if r.URL.Path != "/xrpc/app.bsky.feed.getAuthorFeed" {
			return false
		}
		n := pages.Add(1)
		post := fmt.Sprintf(`{"post":{"uri":"at://%s/app.bsky.feed.post/3kdup","author":{"did":%q,"handle":"alice.example.com"},"record":{"text":"the same post","createdAt":"2026-01-01T00:00:00Z"}}}`, aliceDID, aliceDID)
		if n >= 3 {
			fmt.Fprintf(w, `{"feed":[%s]}`, post)
			return true
		}
		fmt.Fprintf(w, `{"feed":[%s],"cursor":"c%d"}`, post, n)
		return true
	}
	e := env(t)
	res, err := ingest(t, e, a, "https://bsky.app/profile/alice.example.com", 10)
	if err != nil {
		t.Fatal(err)
	}
	if c := strings.Count(res.Snapshot.Markdown, "the same post"); c != 1 {
		t.Errorf("one post written %d times (items %d)", c, res.Items)
	}
	if n := pages.Load(); n != 2 {
		t.Errorf("asked for %d pages, want 2", n)
	}
}
