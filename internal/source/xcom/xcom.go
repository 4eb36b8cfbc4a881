package xcom

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/netip"
	"net/url"
	"os"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/heedhq/heed"
	"github.com/heedhq/heed/fetch"
	"github.com/heedhq/heed/internal/source"
	"github.com/heedhq/heed/internal/source/feed"
)

// DefaultAPIBase is the X API.
const DefaultAPIBase = "https://api.x.com"

// pageSize is the most posts the API gives a page (max_results).
const pageSize = 100

// Kind is the X kind. It takes https://x.com/<user> and
// https://twitter.com/<user>.
type Kind struct {
	// APIBase is the X API's base URL; "" means DefaultAPIBase.
	APIBase string
	// Token is the API's bearer token; "" means none.
	Token string
	// RSSTemplate is a feed URL with {user}, used without a token.
	RSSTemplate string
}

var _ source.Kind = Kind{}

// Name is "x".
// Name is the kind's name in the config file.
const Name = "x"

func (Kind) Name() string { return Name }

// Tags are the tags of every X snapshot.
func (Kind) Tags() []string { return []string{"x", "social"} }

var userRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9_]{1,15}$`) })

// reserved are the first path segments of x.com that are not users.
var reserved = map[string]bool{
	"home": true, "i": true, "search": true, "explore": true, "settings": true, "notifications": true,
	"messages": true, "compose": true, "login": true, "logout": true, "signup": true, "tos": true,
	"privacy": true, "about": true, "hashtag": true, "intent": true, "share": true, "account": true,
	"jobs": true, "lists": true, "bookmarks": true, "communities": true, "premium": true, "verified": true,
	"download": true, "help": true, "rules": true, "topics": true, "follower_requests": true,
	"oauth": true, "sessions": true, "privacy_policy": true, "en": true, "who_to_follow": true,
}

// User returns the user name of a profile URL, and whether the URL is one.
func User(u *url.URL) (string, bool) {
	if u.Scheme != "https" && u.Scheme != "http" {
		return "", false
	}
	switch strings.ToLower(u.Hostname()) {
	case "x.com", "www.x.com", "mobile.x.com", "twitter.com", "www.twitter.com", "mobile.twitter.com":
	default:
		return "", false
	}
	user := strings.TrimSuffix(strings.TrimPrefix(u.Path, "/"), "/")
	if !userRE().MatchString(user) || reserved[strings.ToLower(user)] {
		return "", false
	}
	return user, true
}

// Match takes profile URLs.
func (Kind) Match(u *url.URL) bool {
	_, ok := User(u)
	return ok
}

// Ingest reads a user's newest posts: through the API with a token,
// else through the feed template, else not at all.
func (k Kind) Ingest(ctx context.Context, env *source.Env, in source.Input) (*source.Result, error) {
	u, err := url.Parse(in.URL)
	if err != nil {
		return nil, err
	}
	user, ok := User(u)
	if !ok {
		return nil, source.NotUsable(fmt.Errorf("%s is not an X profile URL (https://x.com/USER)", in.URL))
	}
	target := feed.Target{URL: in.URL, Name: "x/" + strings.ToLower(user), Title: "@" + user + " on X", Tags: Kind{}.Tags()}
	r := redactor(k.Token)
	switch {
	case k.Token != "":
		res, err := k.api(ctx, r.env(env), in, user, target)
		return res, r.err(err)
	case k.RSSTemplate != "":
		feedURL := strings.ReplaceAll(k.RSSTemplate, "{user}", url.PathEscape(user))
		resp, err := feed.Fetch(ctx, env, in.Name, target, feedURL)
		if err != nil {
			return nil, err
		}
		if resp.NotModified {
			return &source.Result{URL: in.URL, NotModified: true}, nil
		}
		if resp.Status < 200 || resp.Status > 299 {
			return nil, fmt.Errorf("the X feed %s answered %d", feedURL, resp.Status)
		}
		res, err := feed.Build(ctx, env, in, target, resp)
		var un *source.Unusable
		if errors.As(err, &un) {
			return nil, fmt.Errorf("the X feed %s: %w", feedURL, un.Err) // named by the user: an error
		}
		return res, err
	}
	return nil, source.NotUsable(fmt.Errorf("%s: heed reads X profiles with an X API bearer token (X_BEARER_TOKEN, or x.bearer_token in the config as env:NAME or file:PATH) or a feed of the user's posts (X_RSS_TEMPLATE, or x.rss_template, such as https://bridge.example/{user}/rss); neither is set", in.URL))
}

// ResolveToken finds the bearer token: the X_BEARER_TOKEN variable, or
// the config's reference, env:NAME or file:PATH. It returns "" when
// neither is set. Its errors never hold the token.
func ResolveToken(getenv func(string) string, ref string) (string, error) {
	if t := strings.TrimSpace(getenv("X_BEARER_TOKEN")); t != "" {
		return t, nil
	}
	if ref == "" {
		return "", nil
	}
	if name, ok := strings.CutPrefix(ref, "env:"); ok {
		t := strings.TrimSpace(getenv(name))
		if t == "" {
			return "", fmt.Errorf("x.bearer_token: the environment variable %s is empty or not set", name)
		}
		return t, nil
	}
	if path, ok := strings.CutPrefix(ref, "file:"); ok {
		f, err := os.Open(path)
		if err != nil {
			return "", fmt.Errorf("x.bearer_token: %v", err)
		}
		defer f.Close()
		buf := make([]byte, 4097)
		n, _ := f.Read(buf)
		t := strings.TrimSpace(string(buf[:n]))
		switch {
		case n > 4096:
			return "", fmt.Errorf("x.bearer_token: %s is longer than a token", path)
		case t == "" || strings.ContainsAny(t, "\r\n"):
			return "", fmt.Errorf("x.bearer_token: %s does not hold one token on one line", path)
		}
		return t, nil
	}
	return "", errors.New("x.bearer_token: must be env:NAME or file:PATH")
}

// redactor keeps a token out of text.
type redactor string

const redacted = "[redacted]"

// text is s with every run of it that shares 8 bytes or more with the
// token taken out, whether the token is written as given, percent-decoded
// or percent-encoded: an API that echoes part of a token ("invalid token
// AAAA…") shows none of it.
func (r redactor) text(s string) string {
	if r == "" {
		return s
	}
	const piece = 8
	forms := []string{string(r), url.QueryEscape(string(r)), url.PathEscape(string(r))}
	if d, err := url.QueryUnescape(string(r)); err == nil {
		forms = append(forms, d)
	}
	if d, err := url.PathUnescape(string(r)); err == nil {
		forms = append(forms, d)
	}
	windows := map[string]bool{}
	for _, f := range forms {
		if len(f) < piece {
			s = strings.ReplaceAll(s, f, redacted)
			continue
		}
		for i := 0; i+piece <= len(f); i++ {
			windows[f[i:i+piece]] = true
		}
	}
	if len(windows) == 0 || len(s) < piece {
		return s
	}
	// Mark the bytes of every window of s that is a window of the token,
	// then write each run of marked bytes as one redaction.
	marked := make([]bool, len(s))
	for i := 0; i+piece <= len(s); i++ {
		if windows[s[i:i+piece]] {
			for j := i; j < i+piece; j++ {
				marked[j] = true
			}
		}
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if !marked[i] {
			b.WriteByte(s[i])
			continue
		}
		b.WriteString(redacted)
		for i+1 < len(s) && marked[i+1] {
			i++
		}
	}
	return b.String()
}

// err returns err with the token out of its message.
func (r redactor) err(err error) error {
	if err == nil || r == "" || r.text(err.Error()) == err.Error() {
		return err
	}
	return &redactedError{msg: r.text(err.Error()), err: err}
}

type redactedError struct {
	msg string
	err error
}

func (e *redactedError) Error() string { return e.msg }

// Unwrap keeps the kinds of the cause (a rate limit, a heed.Error) known;
// their messages are not shown through it.
func (e *redactedError) Unwrap() error { return e.err }

// env returns an Env whose warnings are redacted.
func (r redactor) env(e *source.Env) *source.Env {
	c := *e
	warn := e.Warn
	c.Warn = func(msg string) {
		if warn != nil {
			warn(r.text(msg))
		}
	}
	return &c
}

// The shapes of the API's answers that heed reads.
type (
	apiError struct {
		Title  string `json:"title"`
		Detail string `json:"detail"`
		Type   string `json:"type"`
	}
	xUser struct {
		ID            string `json:"id"`
		Name          string `json:"name"`
		Username      string `json:"username"`
		Description   string `json:"description"`
		PublicMetrics struct {
			Followers int `json:"followers_count"`
			Following int `json:"following_count"`
			Tweets    int `json:"tweet_count"`
		} `json:"public_metrics"`
	}
	tweet struct {
		ID            string `json:"id"`
		Text          string `json:"text"`
		CreatedAt     string `json:"created_at"`
		AuthorID      string `json:"author_id"`
		PublicMetrics struct {
			Retweets int `json:"retweet_count"`
			Replies  int `json:"reply_count"`
			Likes    int `json:"like_count"`
			Quotes   int `json:"quote_count"`
		} `json:"public_metrics"`
		Entities struct {
			URLs []struct {
				Start       int    `json:"start"`
				End         int    `json:"end"`
				URL         string `json:"url"`
				ExpandedURL string `json:"expanded_url"`
				DisplayURL  string `json:"display_url"`
			} `json:"urls"`
		} `json:"entities"`
		Referenced []struct {
			Type string `json:"type"`
			ID   string `json:"id"`
		} `json:"referenced_tweets"`
	}
	page struct {
		Data     []tweet `json:"data"`
		Includes struct {
			Tweets []tweet `json:"tweets"`
			Users  []xUser `json:"users"`
		} `json:"includes"`
		Meta struct {
			ResultCount int    `json:"result_count"`
			NextToken   string `json:"next_token"`
		} `json:"meta"`
		Errors []apiError `json:"errors"`
	}
)

// api reads the user and their posts from the X API v2.
func (k Kind) api(ctx context.Context, env *source.Env, in source.Input, user string, target feed.Target) (*source.Result, error) {
	base := strings.TrimSuffix(k.APIBase, "/")
	if base == "" {
		base = DefaultAPIBase
	}
	// The token travels only over TLS (plain http to the loopback, for
	// tests, aside).
	if b, err := url.Parse(base); err != nil || b.Scheme != "https" && !(b.Scheme == "http" && isLoopback(b.Hostname())) {
		return nil, fmt.Errorf("the X API base %q is not https; heed sends the bearer token over https only", base)
	}
	rl := &source.RateLimiter{Env: env, Service: "the X API", Remaining: "x-rate-limit-remaining", Reset: "x-rate-limit-reset"}
	r := redactor(k.Token)
	get := func(path string, q url.Values, out any) error {
		req := fetch.Request{URL: base + path + "?" + q.Encode(), Accept: "application/json", MaxBytes: 8 << 20,
			Header: http.Header{"Authorization": {"Bearer " + k.Token}}}
		resp, err := rl.Get(ctx, req)
		if err != nil {
			return err
		}
		if resp.Status != http.StatusOK {
			var e struct {
				apiError
				Errors []apiError `json:"errors"`
			}
			json.Unmarshal(resp.Body, &e)
			if e.Title == "" && len(e.Errors) > 0 {
				e.apiError = e.Errors[0]
			}
			msg := source.OneLine(e.Title + ": " + e.Detail)
			if e.Title == "" {
				msg = http.StatusText(resp.Status)
			}
			if resp.Status == http.StatusUnauthorized || resp.Status == http.StatusForbidden {
				msg += "; check the bearer token"
			}
			// Redacted before it is cut: a cut token would be redacted no more.
			return fmt.Errorf("the X API answered %d to %s (%s)", resp.Status, path, source.Truncate(r.text(msg), 200))
		}
		if err := json.Unmarshal(resp.Body, out); err != nil {
			return fmt.Errorf("the X API's answer to %s is not the JSON expected: %v", path, err)
		}
		return nil
	}
	var who struct {
		Data   *xUser     `json:"data"`
		Errors []apiError `json:"errors"`
	}
	if err := get("/2/users/by/username/"+url.PathEscape(user), url.Values{"user.fields": {"description,name,public_metrics"}}, &who); err != nil {
		return nil, err
	}
	if who.Data == nil || who.Data.ID == "" {
		detail := "no such user"
		if len(who.Errors) > 0 {
			detail = source.OneLine(who.Errors[0].Detail)
		}
		return nil, fmt.Errorf("the X user %s: %s", user, source.Truncate(r.text(detail), 200))
	}
	var posts []tweet
	included := map[string]tweet{}
	users := map[string]xUser{who.Data.ID: *who.Data}
	token := ""
	seen := map[string]bool{} // pagination tokens and post IDs
	// Pages enough for the limit, and a few for pages cut short; a page
	// that adds no post ends the reading too.
	for pages := 0; len(posts) < in.Limit && pages < in.Limit/pageSize+4; pages++ {
		q := url.Values{
			"max_results":  {strconv.Itoa(max(5, min(pageSize, in.Limit-len(posts))))},
			"tweet.fields": {"created_at,public_metrics,entities,referenced_tweets,author_id"},
			"expansions":   {"referenced_tweets.id,referenced_tweets.id.author_id"},
			"user.fields":  {"username,name"},
		}
		if token != "" {
			q.Set("pagination_token", token)
		}
		var p page
		if err := get("/2/users/"+url.PathEscape(who.Data.ID)+"/tweets", q, &p); err != nil {
			if len(posts) > 0 && errors.Is(err, source.ErrRateLimited) {
				env.Warnf("x: stopped after %d posts: %v", len(posts), err)
				break
			}
			return nil, err
		}
		added := 0
		for _, t := range p.Data {
			if len(posts) < in.Limit && t.ID != "" && !seen["post "+t.ID] {
				seen["post "+t.ID] = true
				posts = append(posts, t)
				added++
			}
		}
		for _, t := range p.Includes.Tweets {
			included[t.ID] = t
		}
		for _, u := range p.Includes.Users {
			users[u.ID] = u
		}
		if p.Meta.NextToken == "" || added == 0 || seen["token "+p.Meta.NextToken] {
			break
		}
		seen["token "+p.Meta.NextToken] = true
		token = p.Meta.NextToken
	}
	title := target.Title
	if n := source.OneLine(who.Data.Name); n != "" {
		title = n + " (@" + who.Data.Username + ") on X"
	}
	snap := &heed.Snapshot{
		Source: in.Name, URL: in.URL, Name: target.Name, Title: r.text(title),
		Description: r.text(source.OneLine(who.Data.Description)), FetchedAt: env.Now(),
		Tags: source.Tags(target.Tags, in.Tags), Markdown: r.text(render(who.Data, posts, included, users)),
	}
	return &source.Result{URL: in.URL, Snapshot: snap, Items: len(posts), New: len(posts)}, nil
}

// isLoopback reports whether a host is the loopback.
func isLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip, err := netip.ParseAddr(host)
	return err == nil && ip.IsLoopback()
}

// render writes a user and their posts as Markdown.
func render(u *xUser, posts []tweet, included map[string]tweet, users map[string]xUser) string {
	var b strings.Builder
	if d := strings.TrimSpace(u.Description); d != "" {
		b.WriteString(source.Escape(unescape(d)) + "\n\n")
	}
	if !userRE().MatchString(u.Username) {
		u.Username = "i"
	}
	fmt.Fprintf(&b, "Followers: %d · Following: %d · Posts: %d\n", u.PublicMetrics.Followers, u.PublicMetrics.Following, u.PublicMetrics.Tweets)
	handle := func(id string) string {
		if v, ok := users[id]; ok && userRE().MatchString(v.Username) {
			return v.Username
		}
		return "i"
	}
	for _, t := range posts {
		date := source.ISODate(t.CreatedAt)
		heading := "Post"
		if date != "" {
			heading += " of " + date
		}
		var repost, quote *tweet
		replyTo := ""
		for _, ref := range t.Referenced {
			rt, ok := included[ref.ID]
			switch ref.Type {
			case "retweeted":
				if ok {
					repost = &rt
				}
			case "quoted":
				if ok {
					quote = &rt
				}
			case "replied_to":
				replyTo = ref.ID
			}
		}
		shown := t
		if repost != nil {
			shown = *repost
			heading = "Repost of @" + handle(repost.AuthorID)
			if date != "" {
				heading += ", " + date
			}
		}
		fmt.Fprintf(&b, "\n## %s\n\n", heading)
		fmt.Fprintf(&b, "- Link: <https://x.com/%s/status/%s>\n", u.Username, url.PathEscape(t.ID))
		if date != "" {
			b.WriteString("- Date: " + date + "\n")
		}
		if repost != nil {
			fmt.Fprintf(&b, "- Reposted by: @%s\n- Author: @%s\n", u.Username, handle(repost.AuthorID))
		}
		if replyTo != "" {
			fmt.Fprintf(&b, "- Reply to: <https://x.com/i/status/%s>\n", url.PathEscape(replyTo))
		}
		m := shown.PublicMetrics
		fmt.Fprintf(&b, "- Likes: %d · Reposts: %d · Replies: %d · Quotes: %d\n", m.Likes, m.Retweets, m.Replies, m.Quotes)
		if text := tweetText(shown); text != "" {
			b.WriteString("\n" + text + "\n")
		}
		if quote != nil {
			q := "Quoting @" + handle(quote.AuthorID) + " (<https://x.com/" + handle(quote.AuthorID) + "/status/" + url.PathEscape(quote.ID) + ">):"
			if text := tweetText(*quote); text != "" {
				q += "\n\n" + text
			}
			b.WriteString("\n> " + strings.ReplaceAll(q, "\n", "\n> ") + "\n")
		}
	}
	return strings.TrimSpace(b.String())
}

// tweetText writes a post's text as Markdown, its t.co links replaced by the
// links they stand for. The API counts entity offsets in code points, and
// writes &, < and > as entities, which are decoded before the text is
// escaped.
func tweetText(t tweet) string {
	runes := []rune(t.Text)
	var b strings.Builder
	at := 0
	for _, e := range t.Entities.URLs {
		if e.Start < at || e.End <= e.Start || e.End > len(runes) {
			continue
		}
		target := source.HTTPURL(e.ExpandedURL)
		if target == "" {
			continue
		}
		label := e.DisplayURL
		if label == "" {
			label = target
		}
		b.WriteString(source.Escape(unescape(string(runes[at:e.Start]))))
		b.WriteString("[" + source.EscapeText(source.OneLine(unescape(label))) + "](" + source.LinkDest(target) + ")")
		at = e.End
	}
	b.WriteString(source.Escape(unescape(string(runes[at:]))))
	return strings.TrimSpace(b.String())
}

// unescape decodes the entities the API writes.
var unescape = strings.NewReplacer("&lt;", "<", "&gt;", ">", "&amp;", "&").Replace
