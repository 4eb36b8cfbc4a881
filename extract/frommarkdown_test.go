package extract

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// A site's Markdown is written as heed writes any page: nothing in it
// runs, and nothing links but to the web.
func TestFromMarkdownSanitizes(t *testing.T) {
	src := "# Guide\n\n" +
		"<script>steal()</script>\n\n" +
		"<div onclick=\"x()\">a block of HTML</div>\n\n" +
		"Text with <b>inline</b> tags, <img src=x onerror=alert(1)>, [a script](javascript:alert(1)),\n" +
		"[vb](VBScript:msgbox), [data](data:text/html;base64,PHNjcmlwdD4=), [file](file:///etc/passwd),\n" +
		"[mail](mailto:a@example.com), <javascript:alert(2)>, <a@example.com>, [custom](x-app://open),\n" +
		"![pixel](data:image/png;base64,iVBO) ![tracker](ftp://example.com/t.gif)\n\n" +
		"[relative](../b/c.md \"t\"), [absolute](https://other.example/x), <https://auto.example/y>, https://bare.example/z\n"
	doc, err := FromMarkdown([]byte(src), Options{URL: "https://docs.example/a/page.md"})
	if err != nil {
		t.Fatal(err)
	}
	md := doc.Markdown
	for _, bad := range []string{"<script", "steal()", "<div", "onclick", "<b>", "<img", "onerror",
		"javascript:", "VBScript", "vbscript", "data:", "file:", "mailto:", "x-app:", "ftp:", "](a@example.com"} {
		if strings.Contains(md, bad) {
			t.Errorf("the Markdown keeps %q:\n%s", bad, md)
		}
	}
	for _, good := range []string{"# Guide", "a block of HTML", "inline", "a script", "vb", "mail", "custom",
		"[relative](https://docs.example/b/c.md", "[absolute](https://other.example/x)", "https://auto.example/y", "https://bare.example/z"} {
		if !strings.Contains(md, good) {
			t.Errorf("the Markdown lost %q:\n%s", good, md)
		}
	}
	want := []string{"https://docs.example/b/c.md", "https://other.example/x", "https://auto.example/y", "https://bare.example/z"}
	if strings.Join(doc.Links, " ") != strings.Join(want, " ") {
		t.Errorf("Links = %q, want %q", doc.Links, want)
	}
}

func TestFromMarkdownFields(t *testing.T) {
	for _, tt := range []struct {
		name, src, title, desc, body string
	}{
		{"front matter", "---\ntitle: \"The  guide\"\ndescription: How to\n  begin.\n---\n# Heading\n\nText.\n", "The guide", "How to begin.", "# Heading\n\nText."},
		{"closed by ...", "---\r\ntitle: T\r\n...\r\nBody.\r\n", "T", "", "Body."},
		{"first heading", "Intro *text*.\n\n```\n# not a heading\n```\n\n## The `real` [one](x.md) \\#2\n", "The real one #2", "", ""},
		{"setext heading", "Title here\n==========\n\nText.\n", "Title here", "", "Title here\n==========\n\nText."},
		{"front matter not closed is text", "---\ntitle: x\n\nText.\n", "", "", "title: x"},
		{"front matter not a mapping is text", "---\n- a\n---\nText.\n", "", "", "Text."},
		{"title not a string", "---\ntitle: [1, 2]\n---\n# H\n", "H", "", "# H"},
		{"empty", "", "", "", ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			doc, err := FromMarkdown([]byte(tt.src), Options{URL: "https://docs.example/"})
			if err != nil {
				t.Fatal(err)
			}
			if doc.Title != tt.title || doc.Description != tt.desc || !strings.Contains(doc.Markdown, tt.body) {
				t.Errorf("title %q, description %q, Markdown:\n%s\nwant title %q, description %q, Markdown holding %q", doc.Title, doc.Description, doc.Markdown, tt.title, tt.desc, tt.body)
			}
		})
	}
}

func TestFromMarkdownHostile(t *testing.T) {
	if _, err := FromMarkdown(make([]byte, MaxInputBytes+1), Options{}); err == nil {
		t.Error("a document over MaxInputBytes was read")
	}
	doc, err := FromMarkdown([]byte("# T\xffitle\n\ntext \xfe\n"), Options{URL: "https://docs.example/"})
	if err != nil || !utf8.ValidString(doc.Markdown) || !utf8.ValidString(doc.Title) {
		t.Errorf("invalid UTF-8 kept: %q %q (%v)", doc.Title, doc.Markdown, err)
	}
}

// Nesting and runs of markup cost no more than the input's length times
// a constant: each input below is read in time linear in its size.
func BenchmarkFromMarkdownAdversarial(b *testing.B) {
	const n = 100_000
	for _, in := range []struct{ name, src string }{
		{"brackets", strings.Repeat("[", n) + strings.Repeat("]", n)},
		{"links", strings.Repeat("[a](", n)},
		{"titles", strings.Repeat("[a](b (c", n)},
		{"destinations", strings.Repeat("[a]("+strings.Repeat("x", 3000), n/3000)},
		{"definitions", strings.Repeat("[a]: /b\n", n)},
		{"autolinks", strings.Repeat("<https://a.example/", n)},
		{"bare", strings.Repeat("https://a.example/(", n)},
		{"bare-parens", "http://a" + strings.Repeat(")", n)},
		{"rejected-nested", strings.Repeat("![", n) + "x" + strings.Repeat("](javascript:a)", n)},
		{"comments", strings.Repeat("<!--", n)},
		{"unclosed-tags", strings.Repeat("<a ", n)},
		{"backtick-lines", strings.Repeat("`a\n", n)},
		{"emphasis", strings.Repeat("*a", n) + strings.Repeat("_b", n)},
		{"quotes", strings.Repeat(">", n) + " x\n"},
		{"lists", strings.Repeat("- ", n) + "x\n"},
		{"backticks", strings.Repeat("`", n) + "x" + strings.Repeat("``", n/2)},
		{"tags", strings.Repeat("<a ", n)},
		{"table", "|a|b|\n|-|-|\n" + strings.Repeat("|x|y|\n", n/6)},
	} {
		b.Run(in.name, func(b *testing.B) {
			b.SetBytes(int64(len(in.src)))
			for b.Loop() {
				if _, err := FromMarkdown([]byte(in.src), Options{URL: "https://docs.example/"}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// Every spelling of a link to a script that a CommonMark reader follows
// is a link to nowhere after FromMarkdown.
func TestFromMarkdownLinkSpellings(t *testing.T) {
	for _, src := range []string{
		"[x](<javascript:alert(1)>)",
		"[x](java&#115;cript:alert(1))",
		"[x](java&#x73;cript:alert(1))",
		"[x](javascript&colon;alert(1))",
		"[x]( JavaScript:alert(1) \"t\")",
		"[x](\njavascript:alert(1))",
		"[x](java\\script:alert(1))",
		"[x](jav\tascript:alert(1))",
		"[x]\n\n[x]: javascript:alert(1)",
		"[x]\n\n[x]:\njavascript:alert(1)",
		"[x]\n\n[x\ny]: javascript:alert(1)\n\n[x y]",
		"   [x]: <javascript:alert(1)> 'title'\n\n[x]",
		"![x](javascript:alert(1))",
		"[![img](https://ok.example/i.png)](javascript:alert(1))",
		"[a [b] c](javascript:alert(1))",
		"<javascript:alert(1)>",
		"<JAVASCRIPT:alert(1)>",
		"[x](data:text/html,<script>alert(1)</script>)",
	} {
		doc, err := FromMarkdown([]byte(src), Options{URL: "https://docs.example/"})
		if err != nil {
			t.Fatal(err)
		}
		if html := renderLinks(doc.Markdown); html != "" {
			t.Errorf("%q gave %q, which links to %s", src, doc.Markdown, html)
		}
	}
}

// renderLinks returns the first destination of a link, image or
// reference definition in md that is not an http(s) URL, as a reader of
// Markdown would find them ("" when there is none): it reads md loosely,
// taking more for a link than CommonMark does.
func renderLinks(md string) string {
	plain := strings.NewReplacer("\\[", "", "\\]", "", "\\(", "", "\\<", "").Replace(md)
	for i := 0; i < len(plain); i++ {
		var dest string
		switch {
		case strings.HasPrefix(plain[i:], "]("):
			dest = plain[i+2:]
		case strings.HasPrefix(plain[i:], "]:"):
			// A definition's label opens its line, or a line before it
			// in the same paragraph, with an unescaped "[".
			para := md[:strings.LastIndex(md, "]:")]
			if j := strings.LastIndex(para, "\n\n"); j >= 0 {
				para = para[j+2:]
			}
			if !strings.HasPrefix(strings.TrimLeft(para, " "), "[") {
				continue
			}
			dest = plain[i+2:]
		case plain[i] == '<':
			dest = plain[i+1:]
		default:
			continue
		}
		dest = strings.TrimLeft(dest, " \t\n<")
		low := strings.ToLower(dest)
		if !strings.HasPrefix(low, "http://") && !strings.HasPrefix(low, "https://") && strings.Contains(low[:min(len(low), 40)], ":") {
			return dest
		}
	}
	return ""
}
