package testutil

import "testing"

// TestUnsafeMarkdown: what a reader with GFM's bare links reads as raw
// HTML or a script link is found, and the bare links it makes of text
// (to the web, ftp or an e-mail address) are not.
func TestUnsafeMarkdown(t *testing.T) {
	for _, md := range []string{
		"http://ok.example/`<img src=x onerror=alert(1)>`",
		"www.ok.example/a`<javascript:alert(1)>`",
		"[x](javascript:alert(1))", "<javascript:alert(1)>", "[x]\n\n[x]: jav&#x61;script:alert(1)",
		"<a@b.example>", "<!-- x -->", "term\n: a\n\n    <img src=x onerror=alert(1)>",
	} {
		if UnsafeMarkdown(md, false) == "" {
			t.Errorf("%q: found safe", md)
		}
	}
	for _, md := range []string{"www.ok.example/a ftp://ok.example/a a@b.example `<img>`", "[x](http://ok.example/)", "`<b>`"} {
		if bad := UnsafeMarkdown(md, false); bad != "" {
			t.Errorf("%q: %s", md, bad)
		}
	}
}
