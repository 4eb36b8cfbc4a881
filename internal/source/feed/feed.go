package feed

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"mime"
	"net/url"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"

	"github.com/heedhq/heed"
	"github.com/heedhq/heed/fetch"
	"github.com/heedhq/heed/internal/source"
)

// Kind is the feed kind. Asked about any http(s) URL, it takes those that
// serve a feed, and web pages that name one with <link rel="alternate">;
// others it leaves to the next kind.
type Kind struct{}

var _ source.Kind = Kind{}

// Name is "feed".
// Name is the kind's name in the config file.
const Name = "feed"

func (Kind) Name() string { return Name }

// Tags are the tags of every feed snapshot, beside the feed's host.
func (Kind) Tags() []string { return []string{"rss"} }

// Match takes every http(s) URL: one that does not look like a feed's may
// still serve one, or name one.
func (Kind) Match(u *url.URL) bool { return u.Scheme == "http" || u.Scheme == "https" }

// LooksLikeFeed reports whether a URL's path says it is a feed: it ends
// in .rss, .atom or .xml, or a segment is feed, rss or atom.
func LooksLikeFeed(u *url.URL) bool {
	p := strings.ToLower(u.Path)
	for _, ext := range []string{".rss", ".atom", ".xml"} {
		if strings.HasSuffix(p, ext) {
			return true
		}
	}
	for seg := range strings.SplitSeq(p, "/") {
		switch seg {
		case "feed", "rss", "atom":
			return true
		}
	}
	return false
}

// accept prefers feeds, and takes a web page that may name one.
const accept = "application/rss+xml, application/atom+xml, application/feed+json, application/rdf+xml;q=0.9, application/xml;q=0.9, text/xml;q=0.9, application/json;q=0.8, text/html;q=0.7, */*;q=0.5"

// Ingest reads the feed at in.URL, or the feed the web page there names,
// into its snapshot, keeping the items earlier syncs stored.
func (k Kind) Ingest(ctx context.Context, env *source.Env, in source.Input) (*source.Result, error) {
	u, err := url.Parse(in.URL)
	if err != nil {
		return nil, err
	}
	miss := source.NotMine
	var check func(next string) error
	if LooksLikeFeed(u) {
		miss = source.NotUsable
	} else if !in.Named && env.Allowed != nil {
		// A page that may only name a feed is a page: robots.txt has its
		// say before it is fetched. Refused, it is the website kind's,
		// which says why.
		if ok, err := env.Allowed(ctx, in.URL); !ok {
			if err == nil {
				err = fmt.Errorf("robots.txt disallows %s", in.URL)
			}
			return nil, source.NotMine(err)
		}
		// And so has it for every redirect hop.
		check = func(next string) error {
			ok, err := env.Allowed(ctx, next)
			if err == nil && !ok {
				err = fmt.Errorf("robots.txt disallows %s, where %s redirects", next, in.URL)
			}
			return err
		}
	}
	resp, err := get(ctx, env, in.Name, in.URL, check)
	if err != nil {
		return nil, miss(err)
	}
	if resp.NotModified {
		return &source.Result{URL: in.URL, NotModified: true}, nil
	}
	if resp.Status < 200 || resp.Status > 299 {
		return nil, miss(fmt.Errorf("%s answered %d, not a feed", in.URL, resp.Status))
	}
	if Sniff(resp.Body) {
		return Build(ctx, env, in, Target{URL: in.URL}, resp)
	}
	if !isHTML(resp) {
		return nil, miss(fmt.Errorf("%s is not a feed (%s)", in.URL, mediaType(resp)))
	}
	feeds := Discover(resp.Body, resp.URL)
	if len(feeds) == 0 {
		return nil, miss(fmt.Errorf("%s is a web page that names no feed", in.URL))
	}
	// A page naming feeds may be a blog (its feed wanted) or a site whose
	// pages name its blog's feed (the site wanted). Asked on a terminal,
	// the user says; else the site is crawled, which loses nothing, and
	// the feeds are listed. Named as a feed, the page's feed is taken.
	i := 0
	switch {
	case env.ChooseFeed != nil && (len(feeds) > 1 || !in.Named):
		if i, err = env.ChooseFeed(in.URL, feeds, !in.Named); err != nil {
			return nil, err
		}
		if i == -1 && !in.Named {
			return nil, source.NotMine(fmt.Errorf("%s: the site, not its feeds, was chosen", in.URL))
		}
		if i < 0 || i >= len(feeds) {
			return nil, source.NotUsable(fmt.Errorf("no feed of %s was chosen", in.URL))
		}
	case !in.Named:
		which := "the feed"
		if len(feeds) > 1 {
			which = "one of them"
		}
		env.Warnf("%s is a web page naming %s; crawling it as a website. To follow %s instead:\n  heed add %s",
			in.URL, plural(len(feeds), "a feed", "feeds"), which, strings.Join(feeds, "\n  heed add "))
		return nil, source.NotMine(fmt.Errorf("%s is a web page", in.URL))
	case len(feeds) > 1:
		env.Warnf("%s names %d feeds; taking the first, %s (to take another, heed add its URL):\n  %s",
			in.URL, len(feeds), feeds[0], strings.Join(feeds, "\n  "))
	}
	feedURL := feeds[i]
	resp, err = get(ctx, env, in.Name, feedURL, nil)
	if err != nil {
		return nil, source.NotUsable(err)
	}
	if resp.NotModified {
		return &source.Result{URL: feedURL, NotModified: true}, nil
	}
	if resp.Status < 200 || resp.Status > 299 || !Sniff(resp.Body) {
		return nil, source.NotUsable(fmt.Errorf("%s names the feed %s, which answered %d and is not a feed", in.URL, feedURL, resp.Status))
	}
	in.URL = feedURL
	return Build(ctx, env, in, Target{URL: feedURL}, resp)
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// get fetches a feed, or a page that may name one, conditionally when the
// source stored it before, on the host's turn.
func get(ctx context.Context, env *source.Env, src, rawURL string, check func(next string) error) (*fetch.Response, error) {
	req := fetch.Request{URL: rawURL, Accept: accept, MaxBytes: MaxBytes, CheckRedirect: check}
	if env.Store != nil {
		req.ETag, req.LastModified, _ = env.Store.Validators(ctx, src, rawURL)
	}
	return env.Client.Get(ctx, req)
}

// Fetch gets a feed URL for a snapshot stored at target.URL, conditionally
// when the source stored that snapshot before.
func Fetch(ctx context.Context, env *source.Env, src string, target Target, feedURL string) (*fetch.Response, error) {
	req := fetch.Request{URL: feedURL, Accept: accept, MaxBytes: MaxBytes}
	if env.Store != nil {
		req.ETag, req.LastModified, _ = env.Store.Validators(ctx, src, target.URL)
	}
	return env.Client.Get(ctx, req)
}

// Target says where a feed's snapshot goes. Zero fields take the feed's
// own: its URL, feeds/<host-path-slug>, its title, and the tags rss and
// its host.
type Target struct {
	URL   string   // the snapshot's URL
	Name  string   // its place in the stash
	Title string   // its title
	Tags  []string // its tags, before the source's own
}

// Build reads a fetched feed into its snapshot at target, merged with the
// items the source stored there before.
func Build(ctx context.Context, env *source.Env, in source.Input, target Target, resp *fetch.Response) (*source.Result, error) {
	f, err := Read(resp.Body, resp.URL, in.Limit)
	if err != nil {
		return nil, source.NotUsable(fmt.Errorf("%s: %w", resp.URL, err))
	}
	u, err := url.Parse(target.URL)
	if err != nil {
		return nil, err
	}
	if target.Name == "" {
		target.Name = "feeds/" + Slug(u)
	}
	if target.Title == "" {
		target.Title = f.Title
		if target.Title == "" {
			target.Title = u.Host
		}
	}
	if target.Tags == nil {
		target.Tags = []string{"rss", strings.ToLower(u.Hostname())}
	}
	old := ""
	if env.Store != nil {
		if snap, err := env.Store.Get(ctx, target.URL); err == nil && snap.Source == in.Name {
			old = snap.Markdown
		}
	}
	md, total, fresh := Document(f.Description, f.Items, old)
	snap := &heed.Snapshot{
		Source: in.Name, URL: target.URL, Name: target.Name, Title: target.Title,
		Description: plain(f.Description), FetchedAt: env.Now(), Tags: source.Tags(target.Tags, in.Tags),
		ETag: resp.ETag(), LastModified: resp.LastModified(), Markdown: md,
	}
	return &source.Result{URL: target.URL, Snapshot: snap, Items: total, New: fresh}, nil
}

// plain is the first line of Markdown as plain text, for a description.
func plain(md string) string {
	line, _, _ := strings.Cut(md, "\n")
	line = strings.NewReplacer("**", "", "__", "", "`", "").Replace(line)
	if len(line) > 300 {
		line = strings.ToValidUTF8(line[:300], "") + "…"
	}
	return strings.TrimSpace(line)
}

// Slug names a feed's snapshot after its host and path (and query):
// lower-case letters and digits, runs of anything else one "-", 100
// characters at most (a long one ends with a hash of the whole).
func Slug(u *url.URL) string {
	s := strings.ToLower(strings.TrimPrefix(u.Host, "www.") + u.EscapedPath())
	if u.RawQuery != "" {
		s += "-" + strings.ToLower(u.RawQuery)
	}
	var b strings.Builder
	dash := false
	for _, c := range []byte(s) {
		if 'a' <= c && c <= 'z' || '0' <= c && c <= '9' {
			b.WriteByte(c)
			dash = false
		} else if !dash && b.Len() > 0 {
			b.WriteByte('-')
			dash = true
		}
	}
	out := strings.TrimSuffix(b.String(), "-")
	if len(out) > 100 {
		h := sha256.Sum256([]byte(out))
		out = strings.TrimSuffix(out[:80], "-") + "-" + hex.EncodeToString(h[:6])
	}
	if out == "" {
		out = "feed"
	}
	return out
}

func mediaType(resp *fetch.Response) string {
	mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	if mt == "" {
		return "no content type"
	}
	return mt
}

func isHTML(resp *fetch.Response) bool {
	switch mediaType(resp) {
	case "text/html", "application/xhtml+xml":
		return true
	case "no content type":
		head := bytes.ToLower(bytes.TrimSpace(resp.Body[:min(len(resp.Body), 512)]))
		return bytes.HasPrefix(head, []byte("<!doctype html")) || bytes.HasPrefix(head, []byte("<html"))
	}
	return false
}

// feedTypes are the media types of <link rel="alternate"> that name a
// feed.
var feedTypes = map[string]bool{
	"application/rss+xml": true, "application/atom+xml": true, "application/rdf+xml": true,
	"application/feed+json": true,
}

// maxDiscovered is how many feeds Discover lists at most.
const maxDiscovered = 20

// Discover lists the feeds a web page names in <link rel="alternate">
// elements, resolved against the page's URL (or its <base href>), each
// once, in the page's order. It reads the page's head only.
func Discover(page []byte, pageURL string) []string {
	base, err := url.Parse(pageURL)
	if err != nil {
		return nil
	}
	z := html.NewTokenizer(bytes.NewReader(page))
	var out []string
	seen := map[string]bool{}
	for len(out) < maxDiscovered {
		tt := z.Next()
		switch tt {
		case html.ErrorToken:
			return out
		case html.StartTagToken, html.SelfClosingTagToken:
		default:
			continue
		}
		name, hasAttr := z.TagName()
		a := atom.Lookup(name)
		if a == atom.Body {
			return out
		}
		if (a != atom.Link && a != atom.Base) || !hasAttr {
			continue
		}
		attrs := map[string]string{}
		for {
			k, v, more := z.TagAttr()
			attrs[string(k)] = string(v)
			if !more {
				break
			}
		}
		if a == atom.Base {
			if b, err := base.Parse(strings.TrimSpace(attrs["href"])); err == nil && (b.Scheme == "http" || b.Scheme == "https") {
				base = b
			}
			continue
		}
		mt, _, _ := mime.ParseMediaType(attrs["type"])
		if !hasToken(attrs["rel"], "alternate") || !feedTypes[strings.ToLower(mt)] {
			continue
		}
		if u := httpURL(base.String(), attrs["href"]); u != "" && !seen[u] {
			seen[u] = true
			out = append(out, u)
		}
	}
	return out
}

func hasToken(list, token string) bool {
	for _, f := range strings.Fields(strings.ToLower(list)) {
		if f == token {
			return true
		}
	}
	return false
}
