package fetch

import (
	"net/url"
	"strings"
	"testing"
)

// FuzzCredentials: a URL the guard takes carries no user or password as
// Go's client reads it, and Redact never shows a password it carries.
func FuzzCredentials(f *testing.F) {
	for _, s := range []string{
		"http://public.test#@127.0.0.1/", "http://public.test?@127.0.0.1/", "http://user:pa#ss@host/",
		"http://user:1234#x@host/", "http://u:p@a.test#@b/", "http://admin:hunter/2@example.com/",
		"https://user@host:8080/?q=a@b", "http://a:b@c@host/",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		u, err := url.Parse(raw)
		if err != nil || u.Scheme == "" {
			return
		}
		if CheckURL(raw) == nil && u.User != nil {
			t.Errorf("CheckURL(%q) took a URL with credentials %q", raw, u.User)
		}
		if p, ok := u.User.Password(); ok && len(p) >= 4 && strings.Contains(Redact(raw), p) && !strings.Contains(raw[strings.LastIndex(raw, "@"):], p) {
			t.Errorf("Redact(%q) = %q shows the password %q", raw, Redact(raw), p)
		}
	})
}

// BenchmarkRedactHostile redacts text of many "://" and "@", as a
// hostile page's link or a robots check argument may be: the cost is
// linear in its length (it was quadratic: 2.4 s for 120 KB, and 6.8 s
// for 105 KB of "a#b@://").
//
//	go test -run '^$' -bench RedactHostile ./fetch
func BenchmarkRedactHostile(b *testing.B) {
	for name, s := range map[string]string{
		"slashes":  "http://" + strings.Repeat("a://", 30000) + "@x",
		"fragment": "http://" + strings.Repeat("a#b@://", 15000),
		"password": "http://" + strings.Repeat("a:b/://", 15000) + "@x",
	} {
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(s)))
			for b.Loop() {
				Redact(s)
			}
		})
	}
}
