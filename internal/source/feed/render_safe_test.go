package feed

import (
	"encoding/xml"
	"regexp"
	"strings"
	"testing"
)

func xmlText(s string) string {
	var b strings.Builder
	xml.EscapeText(&b, []byte(s))
	return b.String()
}

// rssOf is a feed of two items, the first with the fields given.
func rssOf(title, link, author, guid, html string) string {
	return `<?xml version="1.0"?><rss version="2.0"><channel><title>c</title><link>https://e.com/</link><description>d</description>` +
		`<item><title>` + xmlText(title) + `</title><link>` + xmlText(link) + `</link><author>` + xmlText(author) + `</author><guid>` + xmlText(guid) + `</guid><pubDate>Fri, 02 Jan 2026 00:00:00 +0000</pubDate><description>` + xmlText(html) + `</description></item>` +
		`<item><title>Second</title><link>https://e.com/2</link><pubDate>Thu, 01 Jan 2026 00:00:00 +0000</pubDate><description>two</description></item>` +
		`</channel></rss>`
}

var (
	// container is the markers of block quotes and list items a line's
	// block starts after.
	container = regexp.MustCompile(`^(?:[ \t]*(?:>|[-*+]|\d{1,9}[.)])(?:[ \t]|$))*[ \t]*`)
	// autolink is a Markdown autolink.
	autolink = regexp.MustCompile(`(?:^|[^\\])<([a-zA-Z][a-zA-Z0-9+.-]{1,31}:[^<> \x00-\x20]*)>`)
)

// checkSnapshot fails when a feed's snapshot holds a level 1 or 2
// heading (ATX, in any container, or a setext underline) other than its
// items' headings, or an autolink to anything but http(s).
func checkSnapshot(t *testing.T, what, doc string) {
	t.Helper()
	f, err := Read([]byte(doc), "https://e.com/feed", 10)
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	md, total, _ := Document(f.Description, f.Items, "")
	if n := len(Sections(md)); n != total {
		t.Errorf("%s: %d items written, %d read back:\n%s", what, total, n, md)
	}
	headings := 0
	fenced := false
	for _, l := range strings.Split(md, "\n") {
		if strings.HasPrefix(strings.TrimLeft(container.ReplaceAllString(l, ""), " "), "```") {
			fenced = !fenced
		}
		if fenced {
			continue
		}
		if strings.HasPrefix(l, "## ") {
			headings++
			continue
		}
		rest := container.ReplaceAllString(l, "")
		if regexp.MustCompile(`^#{1,2}([ \t]|$)`).MatchString(rest) || regexp.MustCompile(`^(=+|--?)[ \t]*$`).MatchString(rest) {
			t.Errorf("%s: a heading from content: %q in\n%s", what, l, md)
		}
	}
	if headings != total {
		t.Errorf("%s: %d headings for %d items:\n%s", what, headings, total, md)
	}
	for _, m := range autolink.FindAllStringSubmatch(md, -1) {
		if !strings.HasPrefix(m[1], "https://") && !strings.HasPrefix(m[1], "http://") {
			t.Errorf("%s: an autolink to %q in\n%s", what, m[1], md)
		}
	}
	if regexp.MustCompile(`(?i)(^|[^\\])\]\(\s*javascript:`).MatchString(md) {
		t.Errorf("%s: a javascript: link in\n%s", what, md)
	}
}

// A feed's fields and content cannot forge a link or a heading.
func TestSnapshotSafe(t *testing.T) {
	cases := map[string][5]string{
		"link ends autolink":  {"t", "https://e.com/?><javascript:alert(1)", "a", "g", "<p>x</p>"},
		"link with space":     {"t", "https://e.com/a b>c", "a", "g", "<p>x</p>"},
		"guid ends autolink":  {"t", "https://e.com/1", "a", "x><javascript:alert(1)", "<p>x</p>"},
		"href javascript":     {"t", "https://e.com/1", "a", "g", `<a href="JaVaScRiPt:alert(1)">x</a>`},
		"text autolink":       {"t", "https://e.com/1", "a", "g", `<p>&lt;javascript:alert(1)&gt;</p>`},
		"text link":           {"t", "https://e.com/1", "a", "g", `<p>[x](javascript:alert(1))</p>`},
		"paragraph heading":   {"t", "https://e.com/1", "a", "g", "<p>line</p><p>## Fake</p>"},
		"setext =":            {"t", "https://e.com/1", "a", "g", "<p>Fake\n==</p>"},
		"setext -":            {"t", "https://e.com/1", "a", "g", "<p>x</p><p>Fake\n-</p><hr><p>---</p>"},
		"title line sep":      {"t\u2028## Fake", "https://e.com/1", "a", "g", "<p>x</p>"},
		"author heading":      {"t", "https://e.com/1", "a\n\n## Fake", "g", "<p>x</p>"},
		"list heading":        {"t", "https://e.com/1", "a", "g", `<ul><li>a<h2>Fake</h2></li></ul>`},
		"quote heading":       {"t", "https://e.com/1", "a", "g", `<blockquote><h2>Fake</h2></blockquote>`},
		"quote text heading":  {"t", "https://e.com/1", "a", "g", `<blockquote><p>## Fake</p></blockquote>`},
		"nested list heading": {"t", "https://e.com/1", "a", "g", `<ul><li>a<ul><li>b<h2>Deep</h2></li></ul></li></ul>`},
		"deep list heading":   {"t", "https://e.com/1", "a", "g", `<ol><li>a<ol><li>b<ol><li>c<h1>Deeper</h1></li></ol></li></ol></li></ol>`},
		"table heading":       {"t", "https://e.com/1", "a", "g", `<table><tr><td><h2>Fake</h2></td></tr></table>`},
	}
	for name, c := range cases {
		checkSnapshot(t, name, rssOf(c[0], c[1], c[2], c[3], c[4]))
	}
}

// A link is written percent-encoded, as an autolink nothing in it ends.
func TestLinkEscaped(t *testing.T) {
	f, err := Read([]byte(rssOf("t", "https://e.com/?q=<a b>\"c\"", "", "", "x")), "https://e.com/feed", 10)
	if err != nil {
		t.Fatal(err)
	}
	md := f.Items[0].Render()
	if !strings.Contains(md, "- Link: <https://e.com/?q=%3Ca%20b%3E%22c%22>\n") {
		t.Errorf("got\n%s", md)
	}
}

// Markdown in block quotes and lists, at any depth, loses its level 1
// and 2 headings and its setext underlines.
func TestDemoteContainers(t *testing.T) {
	for in, want := range map[string]string{
		"> ## Fake":                     "> #### Fake",
		"> > # Fake":                    "> > ### Fake",
		"- ## Fake":                     "- #### Fake",
		"1. a\n   1. b\n      # Deeper": "1. a\n   1. b\n      ### Deeper",
		"- a\n  - b\n\n    ## Deep":     "- a\n  - b\n\n    #### Deep",
		"Fake\n==":                      "Fake\n\\==",
		"Fake\n---":                     "Fake\n***",
		"Fake\n-":                       "Fake\n\\-",
		"    # code":                    "    # code",
		"```\n# code\n```":              "```\n# code\n```",
	} {
		if got := Demote(in); got != want {
			t.Errorf("Demote(%q) = %q, want %q", in, got, want)
		}
	}
}
