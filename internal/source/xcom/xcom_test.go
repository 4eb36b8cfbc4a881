package xcom

import (
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/heedhq/heed/internal/source"
	"github.com/heedhq/heed/internal/source/sourcetest"
)

const token = "AAAAAAAAAAAAAAAAAAAAAheedTestTokenZ9x8c7v6b5n4m3"

// xAPI answers like the X API v2 (GET /2/users/by/username/:username and
// GET /2/users/:id/tweets) for the user "harbourmaster", with n posts.
type xAPI struct {
	*httptest.Server
	mu    sync.Mutex
	n     int
	reqs  []*http.Request
	hook  func(w http.ResponseWriter, r *http.Request) bool
	tweet func(i int) map[string]any
}

func newXAPI(t *testing.T, n int) *xAPI {
	a := &xAPI{n: n}
	a.tweet = a.plain
	a.Server = httptest.NewServer(http.HandlerFunc(a.serve))
	t.Cleanup(a.Close)
	return a
}

func (a *xAPI) requests() []*http.Request {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]*http.Request(nil), a.reqs...)
}

func problem(w http.ResponseWriter, status int, title, detail string) {
	w.Header().Set("Content-Type", "application/problem+json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(map[string]any{"title": title, "detail": detail, "type": "about:blank", "status": status})
}

func (a *xAPI) serve(w http.ResponseWriter, r *http.Request) {
	a.mu.Lock()
	a.reqs = append(a.reqs, r)
	hook := a.hook
	a.mu.Unlock()
	if r.Header.Get("Authorization") != "Bearer "+token {
		problem(w, 401, "Unauthorized", "Unauthorized")
		return
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Header().Set("x-rate-limit-limit", "1500")
	w.Header().Set("x-rate-limit-remaining", "1499")
	w.Header().Set("x-rate-limit-reset", strconv.FormatInt(sourcetest.Start.Unix()+900, 10))
	if hook != nil && hook(w, r) {
		return
	}
	q := r.URL.Query()
	switch {
	case r.URL.Path == "/2/users/by/username/harbourmaster":
		fmt.Fprintf(w, `{"data":{"id":"2244994945","name":"Harbour Master","username":"harbourmaster","description":"Tides, boats & [notices]","public_metrics":{"followers_count":512,"following_count":3,"tweet_count":%d,"listed_count":1}}}`, a.n)
	case strings.HasPrefix(r.URL.Path, "/2/users/by/username/"):
		// The API answers 200 with errors for a user that does not exist.
		fmt.Fprint(w, `{"errors":[{"value":"nobody","detail":"Could not find user with username: [nobody].","title":"Not Found Error","resource_type":"user","parameter":"username","resource_id":"nobody","type":"https://api.twitter.com/2/problems/resource-not-found"}]}`)
	case r.URL.Path == "/2/users/2244994945/tweets":
		max, err := strconv.Atoi(q.Get("max_results"))
		if err != nil || max < 5 || max > 100 {
			problem(w, 400, "Invalid Request", "max_results must be 5 to 100")
			return
		}
		start := a.n - 1
		if tok := q.Get("pagination_token"); tok != "" {
			start, _ = strconv.Atoi(strings.TrimPrefix(tok, "tok"))
		}
		var data []map[string]any
		i := start
		for ; i >= 0 && len(data) < max; i-- {
			data = append(data, a.tweet(i))
		}
		meta := map[string]any{"result_count": len(data)}
		if i >= 0 {
			meta["next_token"] = "tok" + strconv.Itoa(i)
		}
		out := map[string]any{"data": data, "meta": meta}
		if start == a.n-1 {
			out["includes"] = map[string]any{
				"tweets": []any{
					map[string]any{"id": "900", "text": "Gale warning for the outer harbour", "author_id": "77", "created_at": "2026-01-01T00:00:00.000Z",
						"public_metrics": map[string]any{"retweet_count": 40, "reply_count": 4, "like_count": 99, "quote_count": 1}},
					map[string]any{"id": "901", "text": "Pilot boat on station", "author_id": "78"},
				},
				"users": []any{map[string]any{"id": "77", "name": "Coastguard", "username": "coastguard"}, map[string]any{"id": "78", "name": "Pilots", "username": "pilots"}},
			}
		}
		json.NewEncoder(w).Encode(out)
	default:
		problem(w, 404, "Not Found", "no such endpoint")
	}
}

func (a *xAPI) plain(i int) map[string]any {
	return map[string]any{
		"id": strconv.Itoa(1000 + i), "text": fmt.Sprintf("Harbour notice %d", i), "author_id": "2244994945",
		"created_at":     time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(i) * time.Minute).Format("2006-01-02T15:04:05.000Z"),
		"public_metrics": map[string]any{"retweet_count": 1, "reply_count": 2, "like_count": i, "quote_count": 0},
	}
}

type website struct{ got []string }

func (w *website) Name() string          { return "website" }
func (w *website) Match(u *url.URL) bool { return true }
func (w *website) Ingest(_ context.Context, _ *source.Env, in source.Input) (*source.Result, error) {
	w.got = append(w.got, in.URL)
	return &source.Result{}, nil
}

func TestUser(t *testing.T) {
	for in, want := range map[string]string{
		"https://x.com/harbourmaster":          "harbourmaster",
		"https://twitter.com/jack/":            "jack",
		"https://www.twitter.com/Some_User":    "Some_User",
		"https://mobile.x.com/jack":            "jack",
		"https://x.com/home":                   "",
		"https://x.com/i/lists/123":            "",
		"https://x.com/i":                      "",
		"https://x.com/search?q=tides":         "",
		"https://x.com/explore":                "",
		"https://x.com/settings":               "",
		"https://twitter.com/Settings":         "",
		"https://x.com/jack/status/20":         "",
		"https://x.com/":                       "",
		"https://x.com/way_too_long_username1": "",
		"https://x.com/bad-dash":               "",
		"https://example.com/jack":             "",
		"ftp://x.com/jack":                     "",
	} {
		u, _ := url.Parse(in)
		got, ok := User(u)
		if got != want || ok != (want != "") {
			t.Errorf("User(%s) got %q, %v, want %q", in, got, ok, want)
		}
	}
}

func TestAPI(t *testing.T) {
	a := newXAPI(t, 230)
	a.tweet = func(i int) map[string]any {
		tw := a.plain(i)
		switch i {
		case 229: // a link, counted in code points after an emoji
			tw["text"] = "🌊 Tide tables: https://t.co/abc123 & more"
			tw["entities"] = map[string]any{"urls": []any{map[string]any{"start": 15, "end": 34, "url": "https://t.co/abc123", "expanded_url": "https://tides.example.com/tables", "display_url": "tides.example.com/tables"}}}
		case 228: // a repost
			tw["text"] = "RT @coastguard: Gale warning for the outer harbour"
			tw["referenced_tweets"] = []any{map[string]any{"type": "retweeted", "id": "900"}}
		case 227: // a quote and a reply
			tw["text"] = "Stay in port"
			tw["referenced_tweets"] = []any{map[string]any{"type": "quoted", "id": "901"}, map[string]any{"type": "replied_to", "id": "555"}}
		}
		return tw
	}
	e := sourcetest.NewEnv(t)
	reg := &source.Registry{Kinds: []source.Kind{Kind{APIBase: a.URL, Token: token}}}
	res, err := reg.Ingest(t.Context(), e.Env, "", source.Input{Name: "hm", URL: "https://x.com/harbourmaster", Limit: 205})
	if err != nil {
		t.Fatal(err)
	}
	if res.Kind != "x" || res.Items != 205 {
		t.Errorf("got kind %q, %d posts, want x, 205", res.Kind, res.Items)
	}
	var pages []url.Values
	for _, r := range a.requests() {
		if strings.HasSuffix(r.URL.Path, "/tweets") {
			pages = append(pages, r.URL.Query())
		}
	}
	if len(pages) != 3 || pages[0].Get("pagination_token") != "" || pages[1].Get("pagination_token") != "tok129" ||
		pages[2].Get("pagination_token") != "tok29" || pages[2].Get("max_results") != "5" {
		t.Errorf("pages got %v, want 100, 100 and 5 posts, following next_token", pages)
	}
	snap, err := e.Store.Get(t.Context(), "https://x.com/harbourmaster")
	if err != nil {
		t.Fatal(err)
	}
	if snap.Path != "x/harbourmaster.md" || snap.Title != "Harbour Master (@harbourmaster) on X" || strings.Join(snap.Tags, ",") != "x,social" {
		t.Errorf("snapshot %s, %q, %v", snap.Path, snap.Title, snap.Tags)
	}
	for _, want := range []string{
		"Tides, boats & \\[notices\\]\n\nFollowers: 512 · Following: 3 · Posts: 230",
		"## Post of 2026-02-01T03:49:00Z\n\n- Link: <https://x.com/harbourmaster/status/1229>\n- Date: 2026-02-01T03:49:00Z\n- Likes: 229 · Reposts: 1 · Replies: 2 · Quotes: 0\n\n🌊 Tide tables: [tides.example.com/tables](https://tides.example.com/tables) & more",
		"## Repost of @coastguard, 2026-02-01T03:48:00Z\n\n- Link: <https://x.com/harbourmaster/status/1228>\n- Date: 2026-02-01T03:48:00Z\n- Reposted by: @harbourmaster\n- Author: @coastguard\n- Likes: 99 · Reposts: 40 · Replies: 4 · Quotes: 1\n\nGale warning for the outer harbour",
		"- Reply to: <https://x.com/i/status/555>",
		"Stay in port\n\n> Quoting @pilots (<https://x.com/pilots/status/901>):\n> \n> Pilot boat on station",
		"Harbour notice 25",
	} {
		if !strings.Contains(snap.Markdown, want) {
			t.Errorf("the snapshot lacks\n%s", want)
		}
	}
	if strings.Contains(snap.Markdown, "Harbour notice 24\n") {
		t.Errorf("the limit did not hold")
	}
	// A user that does not exist: an error naming them.
	if _, err := reg.Ingest(t.Context(), e.Env, "x", source.Input{Name: "n", URL: "https://x.com/nobody"}); err == nil || !strings.Contains(err.Error(), "Could not find user with username: [nobody]") {
		t.Errorf("missing user: %v", err)
	}
}

func TestAPIRateLimit(t *testing.T) {
	a := newXAPI(t, 150)
	calls := 0
	a.hook = func(w http.ResponseWriter, r *http.Request) bool {
		if !strings.HasSuffix(r.URL.Path, "/tweets") {
			// The lookup spends the window, which resets in 60 s.
			w.Header().Set("x-rate-limit-remaining", "0")
			w.Header().Set("x-rate-limit-reset", strconv.FormatInt(sourcetest.Start.Unix()+60, 10))
			return false
		}
		if calls++; calls == 1 {
			w.Header().Set("x-rate-limit-remaining", "0")
			w.Header().Set("x-rate-limit-reset", strconv.FormatInt(sourcetest.Start.Unix()+75, 10))
			problem(w, 429, "Too Many Requests", "Too Many Requests")
			return true
		}
		return false
	}
	e := sourcetest.NewEnv(t)
	reg := &source.Registry{Kinds: []source.Kind{Kind{APIBase: a.URL, Token: token}}}
	res, err := reg.Ingest(t.Context(), e.Env, "x", source.Input{Name: "hm", URL: "https://x.com/harbourmaster", Limit: 120})
	if err != nil || res.Items != 120 {
		t.Fatalf("got %+v, %v", res, err)
	}
	if got := e.Waits(); len(got) != 2 || got[0] != 60*time.Second || got[1] != 15*time.Second {
		t.Errorf("waits got %v, want [1m0s 15s]", got)
	}
}

func TestStrategyChain(t *testing.T) {
	a := newXAPI(t, 3)
	var feedHits int
	var mu sync.Mutex
	bridge := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		feedHits++
		mu.Unlock()
		if r.URL.Path != "/harbourmaster/rss" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/rss+xml")
		fmt.Fprint(w, `<?xml version="1.0"?><rss version="2.0"><channel><title>Harbour Master / X</title><link>https://x.com/harbourmaster</link><description>posts</description>
<item><title>Fog at the bar</title><link>https://x.com/harbourmaster/status/77</link><guid>https://x.com/harbourmaster/status/77</guid><pubDate>Mon, 02 Mar 2026 08:00:00 GMT</pubDate><description><![CDATA[<p>Fog at the bar, sound signals on.</p>]]></description></item>
</channel></rss>`)
	}))
	defer bridge.Close()
	tmpl := bridge.URL + "/{user}/rss"
	profile := source.Input{Name: "hm", URL: "https://x.com/harbourmaster"}

	t.Run("token: the API", func(t *testing.T) {
		e := sourcetest.NewEnv(t)
		reg := &source.Registry{Kinds: []source.Kind{Kind{APIBase: a.URL, Token: token, RSSTemplate: tmpl}}}
		before := feedHits
		res, err := reg.Ingest(t.Context(), e.Env, "", profile)
		if err != nil || res.Items != 3 || feedHits != before {
			t.Errorf("got %+v, %v; feed asked %d times", res, err, feedHits-before)
		}
	})
	t.Run("template: the feed", func(t *testing.T) {
		e := sourcetest.NewEnv(t)
		reg := &source.Registry{Kinds: []source.Kind{Kind{APIBase: a.URL, RSSTemplate: tmpl}}}
		before := len(a.requests())
		res, err := reg.Ingest(t.Context(), e.Env, "", profile)
		if err != nil || res.Kind != "x" || res.Items != 1 || len(a.requests()) != before {
			t.Fatalf("got %+v, %v; API asked %d times", res, err, len(a.requests())-before)
		}
		snap, _ := e.Store.Get(t.Context(), profile.URL)
		if snap.Path != "x/harbourmaster.md" || strings.Join(snap.Tags, ",") != "x,social" ||
			!strings.Contains(snap.Markdown, "## Fog at the bar\n\n- Link: <https://x.com/harbourmaster/status/77>\n- Date: 2026-03-02T08:00:00Z\n\nFog at the bar, sound signals on.") {
			t.Errorf("snapshot %s %v:\n%s", snap.Path, snap.Tags, snap.Markdown)
		}
		// A template on a network the guard refuses fails like any URL.
		reg = &source.Registry{Kinds: []source.Kind{Kind{RSSTemplate: "http://10.0.0.1/{user}/rss"}}}
		if _, err := reg.Ingest(t.Context(), e.Env, "", profile); err == nil || !strings.Contains(err.Error(), "10.0.0.1") {
			t.Errorf("a refused template URL: %v", err)
		}
	})
	t.Run("neither: one warning, the next kind", func(t *testing.T) {
		e := sourcetest.NewEnv(t)
		web := &website{}
		// (No feed kind between: its probe of x.com would be refused by
		// the guard here, and a refusal is final.)
		reg := &source.Registry{Kinds: []source.Kind{Kind{APIBase: a.URL}, web}}
		res, err := reg.Ingest(t.Context(), e.Env, "", profile)
		if err != nil || res.Kind != "website" || len(web.got) != 1 {
			t.Fatalf("got %+v, %v; website got %v", res, err, web.got)
		}
		w := e.Warnings()
		if len(w) != 1 || !strings.Contains(w[0], "X_BEARER_TOKEN") || !strings.Contains(w[0], "X_RSS_TEMPLATE") {
			t.Errorf("warnings got %q, want one naming X_BEARER_TOKEN and X_RSS_TEMPLATE", w)
		}
		// Named as the kind (heed sync of an x source), it is an error.
		if _, err := reg.Ingest(t.Context(), e.Env, "x", profile); err == nil || !strings.Contains(err.Error(), "X_BEARER_TOKEN") {
			t.Errorf("kind x without either: %v", err)
		}
	})
}

func TestTokenNeverShown(t *testing.T) {
	a := newXAPI(t, 3)
	a.tweet = func(i int) map[string]any {
		tw := a.plain(i)
		tw["text"] = "the server echoes Bearer " + token // a hostile or broken API
		return tw
	}
	e := sourcetest.NewEnv(t)
	var said []string
	e.Warn = func(msg string) { said = append(said, msg) }
	reg := &source.Registry{Kinds: []source.Kind{Kind{APIBase: a.URL, Token: token}}}
	if _, err := reg.Ingest(t.Context(), e.Env, "x", source.Input{Name: "hm", URL: "https://x.com/harbourmaster"}); err != nil {
		t.Fatal(err)
	}
	// Errors and warnings that would carry it.
	a.hook = func(w http.ResponseWriter, r *http.Request) bool {
		if strings.HasSuffix(r.URL.Path, "/tweets") {
			w.Header().Set("x-rate-limit-reset", strconv.FormatInt(sourcetest.Start.Unix()+2, 10))
			problem(w, 429, "Too Many Requests", "token "+token+" is over its limit")
			return true
		}
		problem(w, 403, "Forbidden", "the token "+token+" may not read this")
		return true
	}
	_, err := reg.Ingest(t.Context(), e.Env, "x", source.Input{Name: "hm2", URL: "https://x.com/harbourmaster"})
	if err == nil {
		t.Fatal("a 403 gave no error")
	}
	said = append(said, err.Error())
	a.hook = func(w http.ResponseWriter, r *http.Request) bool {
		if strings.HasSuffix(r.URL.Path, "/tweets") {
			w.Header().Set("x-rate-limit-reset", strconv.FormatInt(sourcetest.Start.Unix()+2, 10))
			problem(w, 429, "Too Many Requests", "token "+token+" is over its limit")
			return true
		}
		return false
	}
	if _, err = reg.Ingest(t.Context(), e.Env, "x", source.Input{Name: "hm3", URL: "https://x.com/harbourmaster"}); err != nil {
		said = append(said, err.Error())
	}
	if len(said) < 2 {
		t.Errorf("expected warnings and errors to check, got %q", said)
	}
	for _, s := range said {
		if leaked(s) != "" {
			t.Errorf("said the token: %s", s)
		}
	}
	// Every file of the stash, the index included.
	filepath.WalkDir(e.Dir, func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if b, _ := os.ReadFile(path); leaked(string(b)) != "" {
				t.Errorf("%s holds the token", path)
			}
		}
		return nil
	})
	snap, _ := e.Store.Get(t.Context(), "https://x.com/harbourmaster")
	if !strings.Contains(snap.Markdown, "the server echoes Bearer [redacted]") {
		t.Errorf("the echoed token was not redacted:\n%s", snap.Markdown)
	}
}

func TestResolveToken(t *testing.T) {
	vars := map[string]string{"MY_TOKEN": "from-my-var"}
	getenv := func(k string) string { return vars[k] }
	dir := t.TempDir()
	good := filepath.Join(dir, "token")
	os.WriteFile(good, []byte("from-a-file\n"), 0o600)
	bad := filepath.Join(dir, "two-lines")
	os.WriteFile(bad, []byte("secret-one\nsecret-two\n"), 0o600)
	for _, tt := range []struct{ ref, want, err string }{
		{"", "", ""},
		{"env:MY_TOKEN", "from-my-var", ""},
		{"env:UNSET", "", "UNSET is empty or not set"},
		{"file:" + good, "from-a-file", ""},
		{"file:" + bad, "", "does not hold one token"},
		{"file:" + filepath.Join(dir, "none"), "", "no such file"},
	} {
		got, err := ResolveToken(getenv, tt.ref)
		if got != tt.want || (tt.err == "") != (err == nil) || err != nil && !strings.Contains(err.Error(), tt.err) {
			t.Errorf("ResolveToken(%q) got %q, %v, want %q, %q", tt.ref, got, err, tt.want, tt.err)
		}
		if err != nil && strings.Contains(err.Error(), "secret-") {
			t.Errorf("the error shows the file: %v", err)
		}
	}
	vars["X_BEARER_TOKEN"] = "from-x-var"
	if got, _ := ResolveToken(getenv, "env:MY_TOKEN"); got != "from-x-var" {
		t.Errorf("X_BEARER_TOKEN does not win: %q", got)
	}
}

// The API writes ">" as "&gt;": it is decoded before the text is
// escaped, so that a post starting with ">" is no block quote.
func TestEntitiesDecodedBeforeEscape(t *testing.T) {
	got := tweetText(tweet{Text: "&gt; ## Post of 2026-03-01T00:00:00Z"})
	if strings.HasPrefix(got, ">") || got != `\> ## Post of 2026-03-01T00:00:00Z` {
		t.Errorf("the post's text became Markdown structure: %q", got)
	}
}

// An API error that echoes the Authorization header, long enough that
// the 200-byte cut falls inside the token: the message is redacted
// before it is cut, so that no part of the token is printed.
func TestTruncatedErrorIsRedacted(t *testing.T) {
	a := newXAPI(t, 3)
	a.hook = func(w http.ResponseWriter, r *http.Request) bool {
		problem(w, 403, "Forbidden", "Your request was rejected by the edge gateway for policy reasons (see the developer portal for the terms); the header sent was Authorization: Bearer "+token)
		return true
	}
	e := sourcetest.NewEnv(t)
	reg := &source.Registry{Kinds: []source.Kind{Kind{APIBase: a.URL, Token: token}}}
	_, err := reg.Ingest(t.Context(), e.Env, "x", source.Input{Name: "hm", URL: "https://x.com/harbourmaster"})
	if err == nil {
		t.Fatal("no error")
	}
	if leak := leaked(err.Error()); leak != "" {
		t.Errorf("the error holds %q of the token: %s", leak, err)
	}
}

// Pages of posts without an id, each with a new next_token, are not asked
// for without end: a page that adds no post ends the reading.
func TestPagesWithoutIDsEnd(t *testing.T) {
	a := newXAPI(t, 3)
	var pages atomic.Int32
	a.hook = func(w http.ResponseWriter, r *http.Request) bool {
		if !strings.HasSuffix(r.URL.Path, "/tweets") {
			return false
		}
		n := pages.Add(1)
		if n > 500 {
			fmt.Fprint(w, `{"meta":{"result_count":0}}`)
			return true
		}
		fmt.Fprintf(w, `{"data":[{"text":"x"}],"meta":{"result_count":1,"next_token":"t%d"}}`, n)
		return true
	}
	e := sourcetest.NewEnv(t)
	reg := &source.Registry{Kinds: []source.Kind{Kind{APIBase: a.URL, Token: token}}}
	if _, err := reg.Ingest(t.Context(), e.Env, "x", source.Input{Name: "hm", URL: "https://x.com/harbourmaster", Limit: 10}); err != nil {
		t.Fatal(err)
	}
	if n := pages.Load(); n > 1 {
		t.Errorf("asked for %d pages to take 10 posts", n)
	}
}

// leaked returns a part of the token of 8 bytes or more that s holds, or
// "".
func leaked(s string) string {
	for i := 0; i+8 <= len(token); i++ {
		if strings.Contains(s, token[i:i+8]) {
			return token[i : i+8]
		}
	}
	return ""
}

// The token is sent over https only (http to the loopback aside, for
// tests); @x and @twitter are accounts like any other.
func TestTokenOnlyOverHTTPS(t *testing.T) {
	e := sourcetest.NewEnv(t)
	reg := &source.Registry{Kinds: []source.Kind{Kind{APIBase: "http://api.example", Token: token}}}
	_, err := reg.Ingest(t.Context(), e.Env, "x", source.Input{Name: "hm", URL: "https://x.com/harbourmaster"})
	if err == nil || !strings.Contains(err.Error(), "not https") {
		t.Errorf("an http API base: %v", err)
	}
	for _, u := range []string{"https://x.com/x", "https://twitter.com/twitter"} {
		p, _ := url.Parse(u)
		if _, ok := User(p); !ok {
			t.Errorf("%s is not taken as a profile", u)
		}
	}
}
