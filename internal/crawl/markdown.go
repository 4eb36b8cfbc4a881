package crawl

import (
	"context"
	"errors"
	"net/url"

	"github.com/heedhq/heed/extract"
	"github.com/heedhq/heed/fetch"
	"github.com/heedhq/heed/internal/polite"
)

// Where a snapshot's Markdown came from, when not from the page's HTML
// (heed.Snapshot.Via).
const (
	// ViaMarkdown: the server answered the request with Markdown.
	ViaMarkdown = "markdown"
	// ViaMarkdownAlternate: the page's <link rel="alternate"
	// type="text/markdown">, fetched in its place.
	ViaMarkdownAlternate = "markdown-alternate"
	// ViaLLMsTxt: the page was found in the site's /llms.txt.
	ViaLLMsTxt = "llms.txt"
	// ViaLLMsFullTxt: the page is a site's /llms-full.txt.
	ViaLLMsFullTxt = "llms-full.txt"
)

// acceptMarkdown is what a request for a page's Markdown alternate
// accepts.
const acceptMarkdown = "text/markdown, text/x-markdown;q=0.9, text/plain;q=0.5"

// Alternate fetches the Markdown alternate that the HTML page at pageURL
// names (doc.MarkdownAlternate), through client (on its host's turn), and
// returns doc with the alternate's Markdown in place of the extraction:
// its title and description where it has them, the page's links,
// canonical URL and directives kept. It returns nil, and the page is
// read from its HTML, when there is no alternate, or it is on another
// origin, or it does not answer 2xx with Markdown or plain text (an HTML
// answer is not Markdown, whatever its type says).
//
// allowed, if not nil, judges each redirect hop (a crawl's robots.txt):
// a hop it refuses is not followed.
func Alternate(ctx context.Context, client *polite.Client, pageURL string, doc *extract.Document, allowed func(string) bool) *extract.Document {
	if doc.MarkdownAlternate == "" || !sameOrigin(pageURL, doc.MarkdownAlternate) {
		return nil
	}
	resp, err := client.Get(ctx, fetch.Request{URL: doc.MarkdownAlternate, Accept: acceptMarkdown, NoRetry: true,
		CheckRedirect: func(next string) error {
			if !sameOrigin(pageURL, next) {
				return errOtherOrigin
			}
			if allowed != nil && !allowed(next) {
				return errors.New("robots.txt disallows it")
			}
			return nil
		}})
	if err != nil || resp.Status < 200 || resp.Status > 299 {
		return nil
	}
	md, kind, err := extract.Read(resp.Body, extract.Options{URL: resp.URL, ContentType: resp.Header.Get("Content-Type")})
	switch {
	case err != nil || kind == extract.KindHTML:
		return nil
	case kind == extract.KindText:
		// Named as Markdown by the page, served as plain text (as many
		// servers serve .md files): read as the Markdown it was named.
		if md, err = extract.FromMarkdown(resp.Body, extract.Options{URL: resp.URL}); err != nil {
			return nil
		}
	}
	if md.Markdown == "" {
		return nil
	}
	out := *doc
	out.Markdown = md.Markdown
	if md.Title != "" {
		out.Title = md.Title
	}
	if md.Description != "" {
		out.Description = md.Description
	}
	return &out
}

var errOtherOrigin = errors.New("the Markdown alternate redirects to another origin")

// sameOrigin reports whether two absolute URLs share scheme and host.
func sameOrigin(a, b string) bool {
	ua, err := url.Parse(a)
	if err != nil {
		return false
	}
	ub, err := url.Parse(b)
	if err != nil {
		return false
	}
	return ua.Scheme == ub.Scheme && ua.Host == ub.Host && ua.Host != ""
}

// maxLLMsTxtBytes is the most of a site's /llms.txt that is read.
const maxLLMsTxtBytes = 1 << 20

// readLLMsTxt reads the /llms.txt (llmstxt.org) of start's origin with
// client, when allowed (robots.txt) allows it and every redirect hop, on
// that origin only, and returns the links it lists, normalized. A site
// without one (any answer but 2xx, or HTML) lists none.
func readLLMsTxt(ctx context.Context, client *polite.Client, start string, allowed func(string) bool) []string {
	su, err := url.Parse(start)
	if err != nil {
		return nil
	}
	lu := su.Scheme + "://" + su.Host + "/llms.txt"
	if !allowed(lu) {
		return nil
	}
	resp, err := client.Get(ctx, fetch.Request{URL: lu, Accept: acceptMarkdown, MaxBytes: maxLLMsTxtBytes, NoRetry: true,
		CheckRedirect: func(next string) error {
			if !sameOrigin(lu, next) {
				return errOtherOrigin
			}
			if !allowed(next) {
				return errors.New("robots.txt disallows it")
			}
			return nil
		}})
	if err != nil || resp.Status < 200 || resp.Status > 299 {
		return nil
	}
	ct := resp.Header.Get("Content-Type")
	if !isPlainText(ct) && !isMarkdown(ct) && ct != "" {
		return nil
	}
	doc, kind, err := extract.Read(resp.Body, extract.Options{URL: resp.URL, ContentType: "text/markdown"})
	if err != nil || kind != extract.KindMarkdown {
		return nil
	}
	var links []string
	for _, l := range doc.Links {
		if n, err := Normalize(l); err == nil {
			links = append(links, n)
		}
	}
	return links
}
