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
