package bluesky

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/heedhq/heed"
	"github.com/heedhq/heed/fetch"
	"github.com/heedhq/heed/internal/source"
)

// DefaultAPIBase is the public Bluesky AppView.
const DefaultAPIBase = "https://public.api.bsky.app"

// pageSize is the most posts getAuthorFeed gives a page.
const pageSize = 100

// Kind is the Bluesky kind. It takes https://bsky.app/profile/<handle>
// and https://bsky.app/profile/<did>.
type Kind struct {
	// APIBase is the AppView's base URL; "" means DefaultAPIBase.
	APIBase string
}

var _ source.Kind = Kind{}

// Name is "bluesky".
// Name is the kind's name in the config file.
const Name = "bluesky"

func (Kind) Name() string { return Name }

// Tags are the tags of every Bluesky snapshot.
func (Kind) Tags() []string { return []string{"bluesky", "social"} }

// handleRE and didRE are compiled when first used: the handle's counted
// repeats make a large program, and every heed command would pay for it
// at start-up.
var (
	handleRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^([a-zA-Z0-9]([a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?\.)+[a-zA-Z]([a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?$`)
	})
	didRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^did:[a-z]+:[a-zA-Z0-9._:%-]{1,1000}$`) })
)

// Actor returns the handle or DID of a profile URL, and whether the URL
// is one.
func Actor(u *url.URL) (string, bool) {
	if u.Scheme != "https" && u.Scheme != "http" {
		return "", false
	}
	switch strings.ToLower(u.Hostname()) {
	case "bsky.app", "www.bsky.app":
	default:
		return "", false
	}
	rest, ok := strings.CutPrefix(u.Path, "/profile/")
	if !ok {
		return "", false
	}
	rest = strings.TrimSuffix(rest, "/")
	if len(rest) > 253 || !handleRE().MatchString(rest) && !didRE().MatchString(rest) {
		return "", false
	}
	return rest, true
}

// Match takes profile URLs.
func (Kind) Match(u *url.URL) bool {
	_, ok := Actor(u)
	return ok
}

// Ingest reads a profile and its newest posts (in.Limit of them,
// following the feed's cursor page by page).
func (k Kind) Ingest(ctx context.Context, env *source.Env, in source.Input) (*source.Result, error) {
	u, err := url.Parse(in.URL)
	if err != nil {
		return nil, err
	}
	actor, ok := Actor(u)
	if !ok {
		return nil, source.NotUsable(fmt.Errorf("%s is not a Bluesky profile URL (https://bsky.app/profile/HANDLE)", in.URL))
	}
	base := strings.TrimSuffix(k.APIBase, "/")
	if base == "" {
		base = DefaultAPIBase
	}
	c := &client{base: base, rl: &source.RateLimiter{Env: env, Service: "the Bluesky AppView", Remaining: "ratelimit-remaining", Reset: "ratelimit-reset"}}
	did := actor
	if !strings.HasPrefix(actor, "did:") {
		var r struct {
			DID string `json:"did"`
		}
		status, err := c.get(ctx, "com.atproto.identity.resolveHandle", url.Values{"handle": {actor}}, &r)
		switch {
		case err != nil && status >= 400 && status < 500:
			return nil, source.NotUsable(fmt.Errorf("the Bluesky handle %s does not resolve: %v", actor, err))
		case err != nil:
			return nil, err
		case !didRE().MatchString(r.DID):
			return nil, source.NotUsable(fmt.Errorf("the Bluesky handle %s resolves to no DID", actor))
		}
		did = r.DID
	}
	var p profile
	if status, err := c.get(ctx, "app.bsky.actor.getProfile", url.Values{"actor": {did}}, &p); err != nil {
		if status >= 400 && status < 500 {
			return nil, source.NotUsable(fmt.Errorf("the Bluesky profile %s: %v", actor, err))
		}
		return nil, err
	}
	posts, err := c.feed(ctx, env, did, in.Limit)
	if err != nil {
		return nil, err
	}
	handle := p.Handle
	if !handleRE().MatchString(handle) || handle == "handle.invalid" {
		handle = did
	}
	title := "@" + handle + " on Bluesky"
	if name := source.OneLine(p.DisplayName); name != "" {
		title = name + " (@" + handle + ") on Bluesky"
	}
	snap := &heed.Snapshot{
		Source: in.Name, URL: in.URL, Name: "bluesky/" + strings.ToLower(handle), Title: title,
		Description: source.OneLine(p.Description), FetchedAt: env.Now(),
		Tags: source.Tags(Kind{}.Tags(), in.Tags), Markdown: render(&p, posts),
	}
	return &source.Result{Snapshot: snap, Items: len(posts), New: len(posts)}, nil
}

// client calls the AppView's XRPC methods.
type client struct {
	base string
	rl   *source.RateLimiter
}

// xrpcError is the body of an XRPC error.
type xrpcError struct {
	Error   string `json:"error"`
	Message string `json:"message"`
}

// maxBody caps one XRPC answer.
const maxBody = 8 << 20

// get calls a method and decodes its answer into out. A failure reports
// the status the AppView answered, if it answered.
func (c *client) get(ctx context.Context, method string, q url.Values, out any) (int, error) {
	resp, err := c.rl.Get(ctx, fetch.Request{URL: c.base + "/xrpc/" + method + "?" + q.Encode(), Accept: "application/json", MaxBytes: maxBody})
	if err != nil {
		return 0, err
	}
	if resp.Status != http.StatusOK {
		var e xrpcError
		json.Unmarshal(resp.Body, &e)
		msg := source.OneLine(e.Error + ": " + e.Message)
		if e.Error == "" {
			msg = http.StatusText(resp.Status)
		}
		return resp.Status, fmt.Errorf("%s answered %d (%s)", method, resp.Status, source.Truncate(msg, 200))
	}
	if err := json.Unmarshal(resp.Body, out); err != nil {
		return resp.Status, fmt.Errorf("%s: the answer is not the JSON expected: %v", method, err)
	}
	return resp.Status, nil
}

// feed reads up to limit posts of an author, page by page.
func (c *client) feed(ctx context.Context, env *source.Env, did string, limit int) ([]feedItem, error) {
	var out []feedItem
	cursor := ""
	seen := map[string]bool{} // cursors and post URIs
	// Pages enough for the limit, and a few for pages cut short; a page
	// that adds no post ends the reading too.
	for pages := 0; len(out) < limit && pages < limit/pageSize+4; pages++ {
		q := url.Values{"actor": {did}, "limit": {strconv.Itoa(min(pageSize, limit-len(out)))}}
		if cursor != "" {
			q.Set("cursor", cursor)
		}
		var page struct {
			Cursor string     `json:"cursor"`
			Feed   []feedItem `json:"feed"`
		}
		if _, err := c.get(ctx, "app.bsky.feed.getAuthorFeed", q, &page); err != nil {
			if len(out) > 0 && errors.Is(err, source.ErrRateLimited) {
				env.Warnf("bluesky: stopped after %d posts: %v", len(out), err)
				return out, nil
			}
			return nil, err
		}
		added := 0
		for _, it := range page.Feed {
			// A repost is the post again, by another: known by who reposted.
			id := "post " + it.Post.URI
			if it.Reason != nil {
				id += " reposted by " + it.Reason.By.DID
			}
			if len(out) < limit && it.Post.URI != "" && !seen[id] {
				seen[id] = true
				out = append(out, it)
				added++
			}
		}
		if page.Cursor == "" || added == 0 || seen["cursor "+page.Cursor] {
			break
		}
		seen["cursor "+page.Cursor] = true
		cursor = page.Cursor
	}
	return out, nil
}

// The shapes of the AppView's answers that heed reads (app.bsky.actor.defs
// and app.bsky.feed.defs).
type (
	profile struct {
		DID            string `json:"did"`
		Handle         string `json:"handle"`
		DisplayName    string `json:"displayName"`
		Description    string `json:"description"`
		FollowersCount int    `json:"followersCount"`
		FollowsCount   int    `json:"followsCount"`
		PostsCount     int    `json:"postsCount"`
	}
	author struct {
		DID         string `json:"did"`
		Handle      string `json:"handle"`
		DisplayName string `json:"displayName"`
	}
	feedItem struct {
		Post   postView `json:"post"`
		Reason *struct {
			Type string `json:"$type"`
			By   author `json:"by"`
		} `json:"reason"`
	}
	postView struct {
		URI         string `json:"uri"`
		Author      author `json:"author"`
		Record      record `json:"record"`
		Embed       *embed `json:"embed"`
		ReplyCount  int    `json:"replyCount"`
		RepostCount int    `json:"repostCount"`
		LikeCount   int    `json:"likeCount"`
		QuoteCount  int    `json:"quoteCount"`
		IndexedAt   string `json:"indexedAt"`
	}
	record struct {
		Text      string  `json:"text"`
		Facets    []facet `json:"facets"`
		CreatedAt string  `json:"createdAt"`
		Reply     *struct {
			Parent struct {
				URI string `json:"uri"`
			} `json:"parent"`
		} `json:"reply"`
	}
	facet struct {
		Index struct {
			ByteStart int `json:"byteStart"`
			ByteEnd   int `json:"byteEnd"`
		} `json:"index"`
		Features []struct {
			Type string `json:"$type"`
			URI  string `json:"uri"`
			DID  string `json:"did"`
			Tag  string `json:"tag"`
		} `json:"features"`
	}
	// embed is any of the embed views: images, external, record,
	// recordWithMedia, video.
	embed struct {
		Type     string  `json:"$type"`
		Images   []image `json:"images"`
		External *struct {
			URI         string `json:"uri"`
			Title       string `json:"title"`
			Description string `json:"description"`
		} `json:"external"`
		// Record is a quoted post (record#view: a viewRecord) or, in a
		// recordWithMedia#view, a record#view around it.
		Record *quoted `json:"record"`
		Media  *embed  `json:"media"`
		Alt    string  `json:"alt"` // a video's
	}
	image struct {
		Alt string `json:"alt"`
	}
	quoted struct {
		Type   string  `json:"$type"`
		URI    string  `json:"uri"`
		Author author  `json:"author"`
		Value  record  `json:"value"`
		Record *quoted `json:"record"` // recordWithMedia's record#view
	}
)

// render writes a profile and its posts as Markdown.
func render(p *profile, posts []feedItem) string {
	var b strings.Builder
	if d := strings.TrimSpace(p.Description); d != "" {
		b.WriteString(source.Escape(d) + "\n\n")
	}
	fmt.Fprintf(&b, "Followers: %d · Following: %d · Posts: %d\n", p.FollowersCount, p.FollowsCount, p.PostsCount)
	for _, it := range posts {
		b.WriteString("\n")
		b.WriteString(renderPost(it))
	}
	return strings.TrimSpace(b.String())
}

// renderPost writes one post as a section.
func renderPost(it feedItem) string {
	var b strings.Builder
	p := it.Post
	date := source.ISODate(p.Record.CreatedAt, p.IndexedAt)
	heading := "Post"
	if date != "" {
		heading += " of " + date
	}
	repost := it.Reason != nil && strings.HasSuffix(it.Reason.Type, "#reasonRepost")
	if repost {
		heading = "Repost of @" + handleOf(p.Author)
		if date != "" {
			heading += ", " + date
		}
	}
	b.WriteString("## " + heading + "\n\n")
	if link := postURL(p.URI, p.Author.Handle); link != "" {
		b.WriteString("- Link: <" + link + ">\n")
	}
	if date != "" {
		b.WriteString("- Date: " + date + "\n")
	}
	if repost {
		fmt.Fprintf(&b, "- Reposted by: @%s\n- Author: %s\n", handleOf(it.Reason.By), who(p.Author))
	}
	if p.Record.Reply != nil {
		if parent := postURL(p.Record.Reply.Parent.URI, ""); parent != "" {
			b.WriteString("- Reply to: <" + parent + ">\n")
		}
	}
	fmt.Fprintf(&b, "- Likes: %d · Reposts: %d · Replies: %d · Quotes: %d\n", p.LikeCount, p.RepostCount, p.ReplyCount, p.QuoteCount)
	if t := richText(p.Record.Text, p.Record.Facets); t != "" {
		b.WriteString("\n" + t + "\n")
	}
	if p.Embed != nil {
		if e := renderEmbed(p.Embed); e != "" {
			b.WriteString("\n" + e + "\n")
		}
	}
	return b.String()
}

// renderEmbed writes what a post embeds: an external link, images' alt
// text, a video's, a quoted post.
func renderEmbed(e *embed) string {
	var parts []string
	if e.External != nil {
		if u := source.HTTPURL(e.External.URI); u != "" {
			t := source.OneLine(e.External.Title)
			if t == "" {
				t = u
			}
			line := "Link: [" + source.EscapeText(t) + "](" + source.LinkDest(u) + ")"
			if d := source.OneLine(e.External.Description); d != "" {
				line += " — " + source.Plain(d)
			}
			parts = append(parts, line)
		}
	}
	for i, im := range e.Images {
		alt := source.OneLine(im.Alt)
		if alt == "" {
			alt = "(no alt text)"
		}
		parts = append(parts, fmt.Sprintf("Image %d: %s", i+1, source.Plain(alt)))
	}
	if alt := source.OneLine(e.Alt); alt != "" && strings.Contains(e.Type, "video") {
		parts = append(parts, "Video: "+source.Plain(alt))
	}
	if q := e.Record; q != nil {
		if q.Record != nil { // recordWithMedia: record#view around the viewRecord
			q = q.Record
		}
		if q.URI != "" && (q.Type == "" || strings.HasSuffix(q.Type, "#viewRecord")) {
			var qb strings.Builder
			qb.WriteString("Quoting " + who(q.Author))
			if link := postURL(q.URI, q.Author.Handle); link != "" {
				qb.WriteString(" (<" + link + ">)")
			}
			qb.WriteString(":")
			if t := richText(q.Value.Text, q.Value.Facets); t != "" {
				qb.WriteString("\n\n" + t)
			}
			parts = append(parts, "> "+strings.ReplaceAll(qb.String(), "\n", "\n> "))
		} else if q.URI != "" {
			parts = append(parts, "> A quoted post that cannot be shown ("+source.Plain(q.Type)+")")
		}
	}
	if e.Media != nil {
		if m := renderEmbed(e.Media); m != "" {
			parts = append(parts, m)
		}
	}
	return strings.Join(parts, "\n\n")
}

func who(a author) string {
	if n := source.OneLine(a.DisplayName); n != "" {
		return source.Plain(n) + " (@" + handleOf(a) + ")"
	}
	return "@" + handleOf(a)
}

// handleOf is an author's handle, or their DID when the handle is not
// one: either is safe to write into Markdown as it is.
func handleOf(a author) string {
	switch {
	case handleRE().MatchString(a.Handle):
		return a.Handle
	case didRE().MatchString(a.DID) && !strings.ContainsAny(a.DID, "%"):
		return a.DID
	}
	return "unknown"
}

// richText writes a post's text as Markdown, its facets as links: a link's
// to its URI, a mention's to the profile, a tag's to the tag's page.
// Facets index the text's UTF-8 bytes; one that overlaps another, falls
// outside the text or splits a character is left out.
func richText(text string, facets []facet) string {
	sort.SliceStable(facets, func(i, j int) bool { return facets[i].Index.ByteStart < facets[j].Index.ByteStart })
	var b strings.Builder
	at := 0
	for _, f := range facets {
		s, e := f.Index.ByteStart, f.Index.ByteEnd
		if s < at || e <= s || e > len(text) || !boundary(text, s) || !boundary(text, e) {
			continue
		}
		target := ""
		for _, ft := range f.Features {
			switch {
			case strings.HasSuffix(ft.Type, "#link"):
				target = source.HTTPURL(ft.URI)
			case strings.HasSuffix(ft.Type, "#mention") && didRE().MatchString(ft.DID):
				target = "https://bsky.app/profile/" + ft.DID
			case strings.HasSuffix(ft.Type, "#tag") && ft.Tag != "":
				target = "https://bsky.app/hashtag/" + url.PathEscape(ft.Tag)
			}
			if target != "" {
				break
			}
		}
		if target == "" {
			continue
		}
		b.WriteString(source.Escape(text[at:s]))
		// The label is one line: a line break in it could start a block.
		b.WriteString("[" + source.EscapeText(source.OneLine(text[s:e])) + "](" + source.LinkDest(target) + ")")
		at = e
	}
	b.WriteString(source.Escape(text[at:]))
	return strings.TrimSpace(b.String())
}

// boundary reports whether byte i of s starts a character (or ends s).
func boundary(s string, i int) bool { return i == len(s) || utf8.RuneStart(s[i]) }

// postURL is a post's address on bsky.app, from its at:// URI.
func postURL(uri, handle string) string {
	rest, ok := strings.CutPrefix(uri, "at://")
	if !ok {
		return ""
	}
	parts := strings.Split(rest, "/")
	if len(parts) != 3 || parts[1] != "app.bsky.feed.post" || !didRE().MatchString(parts[0]) {
		return ""
	}
	who := parts[0]
	if handleRE().MatchString(handle) && handle != "handle.invalid" {
		who = handle
	}
	return "https://bsky.app/profile/" + who + "/post/" + url.PathEscape(parts[2])
}
