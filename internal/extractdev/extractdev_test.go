package extractdev

import "testing"

// PlainText strips Markdown's marks and a code fence's, but keeps code's
// text as it stands, a backslash in a string literal included.
func TestPlainText(t *testing.T) {
	md := "# The *title*\n\nSee [the docs](https://x.example/) and on\\_line ![pic](p.png).\n\n```python\nkey = b'_5#y2L\"F4Q8z\\n\\xec]/'\n```\n\nAfter."
	want := " The title\n\nSee the docs and on_line .\n\nkey = b'_5#y2L\"F4Q8z\\n\\xec]/'\n\nAfter."
	if got := PlainText(md); got != want {
		t.Errorf("PlainText:\n%q\nwant\n%q", got, want)
	}
}

// An escaped "!" before a link is text, and the link's text with it; an
// image after an escaped backslash is an image.
func TestPlainTextEscapedBang(t *testing.T) {
	md := "### impl \\![Send](https://x.example/Send) for [T](t)\n\nA \\\\![pic](p.png) and !"
	want := " impl !Send for T\n\nA  and !"
	if got := PlainText(md); got != want {
		t.Errorf("PlainText:\n%q\nwant\n%q", got, want)
	}
}

// Escaped brackets in a link's text or an image's alt do not end it, so
// neither target is left as words.
func TestPlainTextEscapedBrackets(t *testing.T) {
	md := "See[\\[1\\]](https://x.example/#note-1) and [![\\[X-Info\\]](https://x.example/i.gif)](https://x.example/b) *Book*"
	want := "See[1] and  Book"
	if got := PlainText(md); got != want {
		t.Errorf("PlainText:\n%q\nwant\n%q", got, want)
	}
}

// An HTML comment is no text, as a reader of the rendered Markdown sees
// it (a document's page markers); in code, it is the code's.
func TestPlainTextComments(t *testing.T) {
	md := "<!-- page 1 -->\n\nThe tide.\n\n<!-- page 2 -->\n\n```\n<!-- kept -->\n```\n"
	want := "\n\nThe tide.\n\n\n\n<!-- kept -->\n"
	if got := PlainText(md); got != want {
		t.Errorf("PlainText:\n%q\nwant\n%q", got, want)
	}
}
