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
