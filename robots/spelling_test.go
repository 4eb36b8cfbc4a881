package robots

import "testing"

// Spellings of http://e.com/secret.html that a WHATWG URL parser
// (browsers, curl's and most HTTP clients' resolvers of dot segments)
// reads as that path meet its rules (before, each was allowed).
func TestSpellingsMeetTheRules(t *testing.T) {
	r := Parse([]byte("User-agent: *\nDisallow: /secret.html\n"))
	for _, u := range []string{
		`http://e.com\secret.html`,
		"http://e.com/a/../secret.html",
		"http://e.com/./secret.html",
		"http://e.com/%2e/secret.html",
		"http://e.com/se\tcret.html",
		"/a/../secret.html",
	} {
		if d := r.Allowed("heed", u); d.Allowed {
			t.Errorf("Allowed(%q) = %s", u, d)
		}
	}
}
