package fetch

import (
	"crypto/tls"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"testing"
)

// A redirect's Location never reaches the client's error with its
// credentials, nor whole (before, Go's client quoted it twice, in full).
func TestRedirectErrorsRedactLocation(t *testing.T) {
	long := "/" + strings.Repeat("x", 200_000)
	cases := map[string]string{
		"invalid location":      "http://admin:hunter2@bad host/",
		"invalid long location": "http://admin:hunter2@bad host" + long,
	}
	for name, loc := range cases {
		t.Run(name, func(t *testing.T) {
			s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Location", loc)
				w.WriteHeader(http.StatusFound)
			}))
			defer s.Close()
			c := New(Config{AllowNets: []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}, Retries: -1})
			_, err := c.Get(t.Context(), Request{URL: s.URL + "/"})
			if err == nil {
				t.Fatal("no error")
			}
			msg := err.Error()
			if strings.Contains(msg, "hunter2") {
				t.Errorf("the error carries the Location's password: %.300s", msg)
			}
			if len(msg) > 2000 {
				t.Errorf("the error is %d bytes long: the Location is echoed whole", len(msg))
			}
		})
	}
	t.Run("https downgrade", func(t *testing.T) {
		s := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Location", "http://admin:hunter2@127.0.0.1:1/"+strings.Repeat("y", 100_000))
			w.WriteHeader(http.StatusFound)
		}))
		defer s.Close()
		c := New(Config{AllowNets: []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}, Retries: -1})
		c.plain.Transport.(*http.Transport).TLSClientConfig = &tls.Config{RootCAs: s.Client().Transport.(*http.Transport).TLSClientConfig.RootCAs}
		_, err := c.Get(t.Context(), Request{URL: s.URL + "/"})
		if err == nil {
			t.Fatal("no error")
		}
		msg := err.Error()
		if strings.Contains(msg, "hunter2") {
			t.Errorf("the error carries the Location's password: %.200s", msg)
		}
		if len(msg) > 2000 {
			t.Errorf("the error is %d bytes long: the Location is echoed whole", len(msg))
		}
	})
}

// Redact drops a password that holds a "/", "?" or "#" (written
// unencoded, as users do), and CheckURL's error quotes none of it.
func TestRedactPasswordWithDelimiter(t *testing.T) {
	for _, raw := range []string{
		"http://admin:hunter#2@example.com/",
		"http://admin:hunter?2@example.com/",
		"http://admin:hunter/2@example.com/",
	} {
		if got := Redact(raw); strings.Contains(got, "hunter") {
			t.Errorf("Redact(%q) = %q", raw, got)
		}
		if err := CheckURL(raw); err == nil || strings.Contains(err.Error(), "hunter") {
			t.Errorf("CheckURL(%q) = %v", raw, err)
		}
	}
}
