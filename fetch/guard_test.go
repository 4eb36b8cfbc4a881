package fetch

import (
	"errors"
	"net/netip"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestCheckURLRefuses(t *testing.T) {
	g := newGuard(nil)
	tests := []struct {
		url  string
		want string // in the error
	}{
		{"ftp://example.com/x", `scheme "ftp"`},
		{"file:///etc/passwd", `scheme "file"`},
		{"javascript:alert(1)", `scheme "javascript"`},
		{"gopher://example.com/", `scheme "gopher"`},
		{"http://user:pass@example.com/", "credentials"},
		{"https://user@example.com/", "credentials"},
		{"http://127.0.0.1/", "127.0.0.1 is a loopback address (127.0.0.0/8)"},
		{"http://127.0.0.1:8080/", "loopback"},
		{"http://2130706433/", "127.0.0.1 is a loopback address"},
		{"http://0x7f.1/", "127.0.0.1 is a loopback address"},
		{"http://0x7F000001/", "127.0.0.1 is a loopback address"},
		{"http://127.1/", "127.0.0.1 is a loopback address"},
		{"http://017700000001/", "127.0.0.1 is a loopback address"},
		{"http://0177.0.0.1/", "127.0.0.1 is a loopback address"},
		{"http://127.0.0.1./", "loopback"},
		{"http://[::1]/", "::1 is the IPv6 loopback address"},
		{"http://[::ffff:127.0.0.1]/", "127.0.0.1 is a loopback address"},
		{"http://[::ffff:7f00:1]/", "127.0.0.1 is a loopback address"},
		{"http://[::]/", "unspecified"},
		{"http://0.0.0.0/", "this network"},
		{"http://0/", "this network"},
		{"http://10.1.2.3/", "10.1.2.3 is in a private network (RFC 1918) (10.0.0.0/8)"},
		{"http://172.16.5.4/", "172.16.0.0/12"},
		{"http://192.168.1.1/", "192.168.0.0/16"},
		{"http://169.254.169.254/latest/meta-data/", "link-local"},
		{"http://100.64.0.1/", "CGNAT"},
		{"http://224.0.0.1/", "multicast"},
		{"http://255.255.255.255/", "broadcast"},
		{"http://240.0.0.1/", "reserved"},
		{"http://198.18.0.1/", "benchmarking"},
		{"http://198.19.255.255/", "benchmarking"},
		{"http://192.0.2.1/", "documentation"},
		{"http://198.51.100.1/", "documentation"},
		{"http://203.0.113.1/", "documentation"},
		{"http://[fc00::1]/", "unique local"},
		{"http://[fd12:3456::1]/", "unique local"},
		{"http://[fe80::1]/", "link-local"},
		{"http://[ff02::1]/", "multicast"},
		{"http://[64:ff9b::7f00:1]/", "NAT64"},
		{"http://[2002:7f00:1::1]/", "6to4"},
		{"http://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/", "Teredo"},
		{"http://[2001:db8::1]/", "documentation"},
		{"http:///x", "no host"},
	}
	for _, tt := range tests {
		_, err := g.checkURL(tt.url)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("checkURL(%q) got %v, want an error with %q", tt.url, err, tt.want)
		}
	}
}

func TestCheckURLAllows(t *testing.T) {
	g := newGuard(nil)
	tests := []struct{ in, want string }{
		{"https://example.com/a?b#c", "https://example.com/a?b#c"},
		{"HTTPS://Example.com/", "https://Example.com/"},
		{"http://93.184.215.14/", "http://93.184.215.14/"},
		{"http://1572394766/", "http://93.184.215.14/"}, // a public address in a resolver's shorthand
		{"http://0x5d.0xb8.0xd7.0x0e:8080/", "http://93.184.215.14:8080/"},
		{"http://[2606:2800:21f:cb07:6820:80da:af6b:8b2c]/", "http://[2606:2800:21f:cb07:6820:80da:af6b:8b2c]/"},
		{"http://123.example/", "http://123.example/"},
	}
	for _, tt := range tests {
		u, err := g.checkURL(tt.in)
		if err != nil || u.String() != tt.want {
			t.Errorf("checkURL(%q) got %v, %v, want %q", tt.in, u, err, tt.want)
		}
	}
}

func TestGuardAllowNets(t *testing.T) {
	nets, err := ParseNets([]string{"10.0.0.0/8", "127.0.0.1", "fd00::/8"})
	if err != nil {
		t.Fatal(err)
	}
	g := newGuard(nets)
	for _, ok := range []string{"10.9.8.7", "127.0.0.1", "::ffff:10.0.0.1", "fd00::5"} {
		if err := g.check(netip.MustParseAddr(ok)); err != nil {
			t.Errorf("check(%s) with it allowed: %v", ok, err)
		}
	}
	for _, bad := range []string{"127.0.0.2", "192.168.0.1", "fc00::1", "::1"} {
		err := g.check(netip.MustParseAddr(bad))
		if !errors.Is(err, ErrRefused) {
			t.Errorf("check(%s) got %v, want refused", bad, err)
		}
	}
	if _, err := ParseNets([]string{"10.0.0.0/33"}); err == nil {
		t.Errorf("ParseNets accepted a bad prefix")
	}
	if _, err := ParseNets([]string{"intranet"}); err == nil {
		t.Errorf("ParseNets accepted a name")
	}
}

func TestHostAddr(t *testing.T) {
	tests := []struct {
		host string
		want string // "" for not an address
	}{
		{"127.0.0.1", "127.0.0.1"},
		{"2130706433", "127.0.0.1"},
		{"0x7f.1", "127.0.0.1"},
		{"127.1", "127.0.0.1"},
		{"127.0.1", "127.0.0.1"},
		{"017700000001", "127.0.0.1"},
		{"0", "0.0.0.0"},
		{"4294967295", "255.255.255.255"},
		{"4294967296", ""},
		{"256.1.1.1", ""},
		{"1.2.3.256", ""},
		{"1.2.65536", ""},
		{"1.2.3.4.5", ""},
		{"08.1.1.1", ""}, // not octal
		{"0x", ""},
		{"1..1", ""},
		{"example.com", ""},
		{"::1", "::1"},
	}
	for _, tt := range tests {
		a, ok := hostAddr(tt.host)
		got := ""
		if ok {
			got = a.String()
		}
		if got != tt.want {
			t.Errorf("hostAddr(%q) got %q, want %q", tt.host, got, tt.want)
		}
	}
}

// CheckURL is the entry points' rule: what it refuses, no door takes, and
// its errors never carry the URL's credentials or more than a bounded
// part of it.
func TestCheckURL(t *testing.T) {
	long := "https://example.com/" + strings.Repeat("a", MaxURLLength)
	tests := []struct {
		url  string
		want string // in the error, "" for none
	}{
		{"https://example.com/docs/", ""},
		{"http://example.com:8080/a?b=c#d", ""},
		{"https://example.com/" + strings.Repeat("a", MaxURLLength-len("https://example.com/")), ""},
		{long, "8212 bytes long, more than the 8192"},
		{"http://admin:hunter2@example.com/", "credentials"},
		{"http://admin@example.com/", "credentials"},
		{"http://:hunter2@example.com/", "credentials"},
		{"http://admin:hunter2 x@example.com/", "credentials"},
		{"ftp://example.com/", `scheme "ftp"`},
		{"example.com/docs", `no scheme; give it as https://example.com/docs or http://example.com/docs`},
		{"127.0.0.1:18081", `no scheme; give it as https://127.0.0.1:18081 or http://127.0.0.1:18081`},
		{"//example.com/docs", `no scheme; give it as https://example.com/docs or http://example.com/docs`},
		{"//admin:hunter2@example.com/docs", `no scheme; give it as https://example.com/docs or http://example.com/docs`},
		{"//admin:hunter/2@example.com/docs", `no scheme`},
		{"admin:1234@example.com/docs", `no scheme; give it as https://example.com/docs or http://example.com/docs`},
		{"localhost:8080/x", `no scheme; give it as https://localhost:8080/x or http://localhost:8080/x`},
		{"http:///x", "no host"},
		{"http://exa mple.com/hunter2", "invalid character"},
		// An "@" in the fragment or query is no credentials (RFC 3986,
		// WHATWG: the host is public.test).
		{"http://public.test#@127.0.0.1/", ""},
		{"http://public.test?@127.0.0.1/", ""},
		{"http://public.test:8080#x@127.0.0.1/", ""},
	}
	for _, tt := range tests {
		err := CheckURL(tt.url)
		switch {
		case tt.want == "" && err != nil:
			t.Errorf("CheckURL(%.40q) = %v, want nil", tt.url, err)
		case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
			t.Errorf("CheckURL(%.40q) = %v, want an error saying %q", tt.url, err, tt.want)
		case err != nil && (strings.Contains(err.Error(), "hunter2") || len(err.Error()) > 300):
			t.Errorf("CheckURL(%.40q)'s error echoes the URL: %.300s", tt.url, err)
		}
	}
	// The client refuses what no entry point takes, with a bounded error.
	c := New(Config{})
	_, err := c.Get(t.Context(), Request{URL: long})
	if !errors.Is(err, ErrInvalidURL) || len(err.Error()) > 600 {
		t.Errorf("Get of a %d-byte URL: %.600v", len(long), err)
	}
}

// Safe reads text: a URL in it ends at a space, a quote, "<", ">" or a
// line end, and what follows is no URL's password.
func TestSafeReadsText(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{`Get "http://host": mail bob@example.com`, `Get "http://host": mail bob@example.com`},
		{`Get "http://admin:hunter2@host/x": EOF`, `Get "http://host/x": EOF`},
		{"see http://host and a@b/", "see http://host and a@b/"},
	} {
		if got := Safe(errors.New(tt.in)).Error(); got != tt.want {
			t.Errorf("Safe(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestRedact(t *testing.T) {
	tests := []struct{ in, want string }{
		{"http://admin:hunter2@host/x", "http://host/x"},
		{"https://user@host:8080/?q=a@b", "https://host:8080/?q=a@b"},
		{"http://a:b@c@host/", "http://host/"},
		{"http://u:p@exa mple.com/", "http://exa mple.com/"}, // unreadable, still redacted
		{"http://host/path@x", "http://host/path@x"},
		{"http://u:p@host\\x@y", "http://host\\x@y"},
		{"mailto:someone@example.com", "mailto:someone@example.com"},
		// The host is public.test: no credentials to drop, and the URL
		// is named as it is, not as a URL of 127.0.0.1.
		{"http://public.test#@127.0.0.1/", "http://public.test#@127.0.0.1/"},
		{"http://public.test?@127.0.0.1/", "http://public.test?@127.0.0.1/"},
		{`fetch "http://public.test#@127.0.0.1/": failed`, `fetch "http://public.test#@127.0.0.1/": failed`},
		// A URL without "://" whose authority WHATWG reads all the same:
		// scheme-relative, one slash, backslashes.
		{"//admin:hunter2@example.com/x", "//example.com/x"},
		{`\\admin:hunter2@example.com/x`, `\\example.com/x`},
		{"http:/admin:hunter2@example.com/x", "http:/example.com/x"},
		{"http:admin:hunter2@example.com/x", "http:example.com/x"},
		{"mailto:admin:hunter2@example.com", "mailto:admin:hunter2@example.com"},
		{`https:\\admin:hunter2@example.com/x`, `https:\\example.com/x`},
		{"HTTP:///admin:hunter2@example.com/x", "HTTP:///example.com/x"},
		// A URL is one URL: a space, a quote, "<", ">" or a line end in
		// its password is the password's (WHATWG encodes them).
		{"http://u:hunter2 x@host/x", "http://host/x"},
		{`http://u:hunter2"x@host/x`, "http://host/x"},
		{"http://u:<hunter2>@host/x", "http://host/x"},
		{"http://u:hunter2\nx@host/x", "http://host/x"},
		{"http://u:hunter2 x@host", "http://host"},
		// heed reads a URL without "://" whose colon is followed by a
		// digit as a host and port (CheckURL's hint: "give it as
		// https://..."): what is before its "@" is credentials.
		{"admin:1234@example.com/x", "example.com/x"},
		{"localhost:8080/a@b", "localhost:8080/a@b"},
		// A path is no URL with an authority.
		{"/users/@bob", "/users/@bob"},
		{"/a:b@c/d", "/a:b@c/d"},
	}
	for _, tt := range tests {
		if got := Redact(tt.in); got != tt.want {
			t.Errorf("Redact(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
	long := "https://example.com/" + strings.Repeat("é", 1000)
	if got := Redact(long); len(got) > 300 || !strings.Contains(got, "bytes in all") || !utf8.ValidString(got) {
		t.Errorf("Redact of a long URL: %q", got)
	}
}
