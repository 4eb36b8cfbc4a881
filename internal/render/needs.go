package render

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/heedhq/heed"
	"github.com/heedhq/heed/fetch"
)

// Mode says when a page is rendered.
type Mode string

// The modes: Auto renders a page when its static HTML needs it (Needs),
// Always renders every HTML page, Never none.
const (
	Auto   Mode = "auto"
	Always Mode = "always"
	Never  Mode = "never"
)

// ParseMode reads a mode; "" is Auto.
func ParseMode(s string) (Mode, error) {
	switch m := Mode(strings.ToLower(strings.TrimSpace(s))); m {
	case "":
		return Auto, nil
	case Auto, Always, Never:
		return m, nil
	}
	return "", fmt.Errorf("render %q: must be auto, always or never", s)
}

// tinyContent is the most characters of main content a page may have and
// still be taken for a shell that its scripts fill.
const tinyContent = 200

// scanBytes is how much of a page's HTML Needs reads.
const scanBytes = 1 << 20

// The patterns are compiled when first used, not as heed starts: every
// command paid for them (2 ms, 5,000 allocations) when most render nothing.
var (
	// A script tag that runs: no type, or a JavaScript one (not JSON-LD,
	// not a template).
	hasScript = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?i)<script\b[^>]{0,500}>`) })
	jsType    = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?i)\btype\s*=\s*["']?([^"'\s>]*)`) })
	// An application's root, empty: <div id="root"></div> and the like.
	emptyRoot = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)<(?:div|main|section|body)\b[^>]{0,200}?\bid\s*=\s*["']?(?:root|app|__next|__nuxt|___gatsby|svelte|app-root|application|react-root|main-app)["'\s>][^>]{0,200}>\s*</(?:div|main|section|body)>`)
	})
	// A <noscript> that asks for JavaScript.
	asksForJS = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)<noscript\b[^>]{0,200}>[^<]{0,500}?(?:javascript|enable js|js enabled|js is disabled)`)
	})
)

// Needs reports whether a page's static HTML needs rendering: its main
// content (markdown, as extracted from html) is empty or tiny while the
// page carries scripts, an empty application root (#root, #app, #__next
// and the like), or a <noscript> that asks for JavaScript.
func Needs(html []byte, markdown string) bool {
	if utf8.RuneCountInString(strings.TrimSpace(markdown)) > tinyContent {
		return false
	}
	if len(html) > scanBytes {
		html = html[:scanBytes]
	}
	return runsScript(html) || emptyRoot().Match(html) || asksForJS().Match(html)
}

// runsScript reports whether html has a script tag that runs: one
// without a type, or of a JavaScript type or module.
func runsScript(html []byte) bool {
	for _, tag := range hasScript().FindAll(html, 64) {
		m := jsType().FindSubmatch(tag)
		if m == nil {
			return true
		}
		switch t := strings.ToLower(string(m[1])); {
		case t == "", t == "module", strings.Contains(t, "javascript"), strings.Contains(t, "ecmascript"):
			return true
		}
	}
	return false
}

// Wants reports whether mode has a page rendered, given its static HTML
// and the Markdown extracted from it: Never, no; Always, yes; Auto (or
// ""), when Needs says so.
func Wants(mode Mode, html []byte, markdown string) bool {
	switch mode {
	case Never:
		return false
	case Always:
		return true
	}
	return Needs(html, markdown)
}

// Apply renders the page of doc when mode says so (Never: not; Auto, or
// "": when Needs says its static HTML needs it; Always), and hands the
// rendered HTML to read, which reads it as its caller reads pages. It
// returns whether the page was rendered, and a note for it: that a page
// which looked empty was not rendered, and why (no browser, as with a
// nil Browser, or a rendering that failed), or which budget a rendered
// page spent. With Always, a page that could not be rendered is an
// error.
func (b *Browser) Apply(ctx context.Context, mode Mode, doc *fetch.Response, markdown string, get Get, read func(html []byte) error) (rendered bool, note string, err error) {
	if !Wants(mode, doc.Body, markdown) {
		return false, "", nil
	}
	err = ErrNoBrowser
	if b != nil {
		var p *Page
		if p, err = b.Render(ctx, doc, get); err == nil {
			if err = read(p.HTML); err == nil {
				if p.Cut != "" {
					note = "rendered until its " + p.Cut + " budget was spent, and read as it stood then"
				}
				return true, note, nil
			}
		}
	}
	if mode == Always || ctx.Err() != nil || heed.KindOf(err) == heed.Transient {
		// Not rendered for a cause that may pass (the caller stopped,
		// the browser was stopped with the page in it): the page is
		// not kept as its shell, but fails, to be tried again.
		return false, "", &heed.Error{Kind: heed.KindOf(err), Op: "render", URL: doc.URL, Err: err}
	}
	return false, "the page holds next to nothing without its scripts, and was not rendered: " + err.Error(), nil
}
