package fetch

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"syscall"

	"code.dny.dev/ssrf"

	"github.com/heedhq/heed"
)

// ErrRefused is wrapped by every error of a request that the guard
// refused before connecting.
var ErrRefused = errors.New("refused")

// ErrInvalidURL is wrapped by the error of a URL that cannot be read.
var ErrInvalidURL = errors.New("invalid URL")

// MaxURLLength is the longest URL heed reads, in bytes: every entry point
// refuses a longer one, and the client never requests one. 8 KiB is what
// common servers and proxies accept.
const MaxURLLength = 8 << 10

// CheckURL refuses a URL that no entry point takes, whether it is fetched
// now or crawled later: one longer than MaxURLLength, one that cannot be
// read, a scheme other than http or https, credentials (user or password
// before the host), or no host. Its errors name at most a bounded prefix
// of the URL, and never its credentials.
func CheckURL(raw string) error {
	_, err := readURL(raw)
	return err
}

// readURL reads raw by the rule CheckURL states, and returns it with its
// scheme in lower case.
func readURL(raw string) (*url.URL, error) {
	if len(raw) > MaxURLLength {
		return nil, fmt.Errorf("%w: %d bytes long, more than the %d heed reads", ErrInvalidURL, len(raw), MaxURLLength)
	}
	// Credentials are looked for before parsing too: a password with an
	// unencoded "#" or "/" makes url.Parse quote part of it in its error.
	if HasCredentials(raw) {
		return nil, errCredentials
	}
	noScheme := func() error {
		// A host and a path, such as 127.0.0.1:8080/docs, which url.Parse
		// reads without a scheme or refuses in words of its own.
		// Any user and password are left out.
		rest := heed.Clip(strings.TrimPrefix(redactAll(raw, false), "//"), 64)
		return fmt.Errorf("%w: no scheme; give it as https://%s or http://%s", ErrInvalidURL, rest, rest)
	}
	u, err := url.Parse(raw)
	if err != nil {
		if !strings.Contains(raw, "://") {
			return nil, noScheme()
		}
		return nil, fmt.Errorf("%w: %w", ErrInvalidURL, parseCause(err))
	}
	if u.Scheme == "" || u.Opaque != "" && u.Opaque[0] >= '0' && u.Opaque[0] <= '9' {
		// No scheme, or a host and port read as one (localhost:8080/x).
		return nil, noScheme()
	}
	u.Scheme = strings.ToLower(u.Scheme)
	switch {
	case u.Scheme != "http" && u.Scheme != "https":
		return nil, fmt.Errorf("%w: %w: scheme %q (only http and https are fetched)", ErrRefused, ErrInvalidURL, heed.Clip(u.Scheme, 32))
	case u.User != nil:
		return nil, errCredentials
	case u.Hostname() == "":
		return nil, fmt.Errorf("%w: no host", ErrInvalidURL)
	}
	return u, nil
}

var errCredentials = fmt.Errorf("%w: the URL carries credentials (a user or password before the host); heed never sends them, so leave them out", ErrRefused)

// Redact is a URL as heed may write it anywhere: without the user and
// password it may carry, readable as a URL or not, and at most 256 bytes
// of it (heed.Clip). Credentials are whatever comes before the last "@"
// of the authority, which ends at the first "/" or "\\" (not at "?" or
// "#": a password may hold them unencoded), unless the URL reads with
// the "@" in its query or fragment, as http://a.test#@b/ does.
//
// raw is read as one URL: a space, a quote, "<", ">" or a line end in it
// does not end it (WHATWG encodes them in a password); Safe reads text.
func Redact(raw string) string { return heed.Clip(redactAll(raw, false), 256) }

// WithoutCredentials is the URL s without its user and password (and
// those of URLs in it, "scheme://..."), as Redact reads them, and nothing
// else changed: no clipping.
func WithoutCredentials(s string) string { return redactAll(s, false) }

// redactAll removes the credentials of every URL in s ("scheme://...").
// With text, s is text, in which a URL ends at a space, a quote, "<", ">"
// or a line end; without, s is one URL, which nothing but its end ends.
// It reads s once: every search starts where the last one stopped, so that
// hostile text of many "://" costs no more than its length.
func redactAll(s string, text bool) string {
	if !strings.Contains(s, "@") {
		return s
	}
	var b strings.Builder
	sc := newCredScanner(s, text)
	written, p := 0, 0
	// A URL that starts s may read as one with an authority without
	// "://" (WHATWG): "//user:pass@host/", "http:/user:pass@host/",
	// "https:\\user:pass@host/", "http:user:pass@host/".
	if st := authorityStart(s, text); st >= 0 {
		if at := sc.userinfoEnd(st); at >= 0 {
			b.WriteString(s[:st])
			written, p = at+1, at+1
		}
	}
	for {
		i := strings.Index(s[p:], "://")
		if i < 0 {
			break
		}
		p += i + 3
		if at := sc.userinfoEnd(p); at >= 0 {
			b.WriteString(s[written:p])
			written, p = at+1, at+1
		}
	}
	if written == 0 {
		return s
	}
	b.WriteString(s[written:])
	return b.String()
}

// authorityStart is the index where the authority of a URL at the start
// of s begins when WHATWG reads it there though s has no "://" at that
// place: after two or more "/" or "\\" without a scheme, or after the
// scheme and any run of them for http, https, ws, wss and ftp; and, when
// s is one URL (not text), at its start when its first colon is followed
// by a digit, which readURL reads as a host and port ("user:1234@host/").
// It is -1 otherwise.
func authorityStart(s string, text bool) int {
	i := 0
	for j := 0; j < len(s); j++ {
		c := s[j] | 0x20
		if c >= 'a' && c <= 'z' || j > 0 && (s[j] >= '0' && s[j] <= '9' || s[j] == '+' || s[j] == '-' || s[j] == '.') {
			continue
		}
		if s[j] == ':' && j > 0 {
			switch strings.ToLower(s[:j]) {
			case "http", "https", "ws", "wss", "ftp":
				i = j + 1
			default:
				if !text && j+1 < len(s) && s[j+1] >= '0' && s[j+1] <= '9' {
					return 0
				}
				return -1
			}
		}
		break
	}
	n := i
	for n < len(s) && (s[n] == '/' || s[n] == '\\') {
		n++
	}
	if i == 0 && n < 2 {
		return -1
	}
	return n
}

// credScanner finds the credentials of the URLs in s, at positions that
// only grow; it remembers where the next end of a URL and the next "@"
// are, so that no byte of s is searched twice for them.
type credScanner struct {
	s              string
	stop, stopFrom int // the first byte that ends a URL at or after stopFrom; -1 before any search
	nextAt, atFrom int // the first "@" at or after atFrom, len(s) for none; -1 before any search
}

func newCredScanner(s string, text bool) *credScanner {
	c := &credScanner{s: s, stop: -1, nextAt: -1}
	if !text {
		// One URL: its end is the only end.
		c.stop = len(s)
	}
	return c
}

// urlEnd is the index of the first byte at or after p that ends a URL in
// text (a space, a quote, "<", ">", a line end), or len(s).
func (c *credScanner) urlEnd(p int) int {
	if p < c.stopFrom || p > c.stop {
		c.stop = len(c.s)
		if j := strings.IndexAny(c.s[p:], " \"<>\n"); j >= 0 {
			c.stop = p + j
		}
		c.stopFrom = p
	}
	return c.stop
}

// at is the index of the first "@" at or after p, or len(s).
func (c *credScanner) at(p int) int {
	if p < c.atFrom || p > c.nextAt {
		c.nextAt = len(c.s)
		if j := strings.IndexByte(c.s[p:], '@'); j >= 0 {
			c.nextAt = p + j
		}
		c.atFrom = p
	}
	return c.nextAt
}

// userinfoEnd is the index in s of the "@" that ends the credentials of
// the URL whose "://" ends at p, or -1.
func (c *credScanner) userinfoEnd(p int) int {
	stop := c.urlEnd(p)
	end := stop
	if j := strings.IndexAny(c.s[p:stop], "/\\"); j >= 0 {
		end = p + j
	}
	auth := c.s[p:end]
	if at := strings.LastIndexByte(auth, '@'); at >= 0 {
		// An "@" after a "?" or "#" is in the query or fragment when
		// the authority before them reads so (RFC 3986, WHATWG):
		// http://a.test#@b/ is a URL of a.test, without credentials.
		// When it does not read (http://user:pa#ss@host/), the "#" was
		// a password's.
		if k := strings.IndexAny(auth[:at], "?#"); k >= 0 && readsWithoutUserinfo(auth[:k]) {
			return -1
		}
		return p + at
	}
	// A password with an unencoded "/" ("user:pa/ss@host"): the authority
	// has a ":" that starts no port, and an "@" follows.
	if i := strings.IndexByte(auth, ':'); i >= 0 && !strings.HasPrefix(auth, "[") && !isPort(auth[i+1:]) {
		if at := c.at(end); at < stop {
			return at
		}
	}
	return -1
}

// readsWithoutUserinfo reports whether an authority reads as a host,
// with a port or not, and no user or password.
func readsWithoutUserinfo(authority string) bool {
	u, err := url.Parse("http://" + authority)
	return err == nil && u.User == nil && u.Host != ""
}

func isPort(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// HasCredentials reports whether the authority of the URL raw carries a
// user or password, as Redact reads it: CheckURL refuses such a URL.
func HasCredentials(raw string) bool {
	i := strings.Index(raw, "://")
	if i < 0 {
		return false
	}
	return newCredScanner(raw, false).userinfoEnd(i+3) >= 0
}

// Safe is err with a message heed may write anywhere: URLs in it
// redacted, at most 512 bytes. Go's HTTP client quotes a Location header
// whole in its errors, and an error may quote a URL a page gave. errors.Is
// and errors.As see err as it was.
func Safe(err error) error {
	if err == nil {
		return nil
	}
	msg := err.Error()
	safe := heed.Clip(redactAll(msg, true), 512)
	if safe == msg {
		return err
	}
	return &safeError{err: err, msg: safe}
}

type safeError struct {
	err error
	msg string
}

func (e *safeError) Error() string { return e.msg }
func (e *safeError) Unwrap() error { return e.err }

// parseCause is what url.Parse found wrong, without the URL (which may
// be long, or carry credentials).
func parseCause(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}

// guard decides which addresses heed may connect to: public unicast
// addresses, and those in the networks the user allowed. The deny lists
// are code.dny.dev/ssrf's, generated from the IANA special-purpose
// registries.
type guard struct {
	allow []netip.Prefix
	ssrf  *ssrf.Guardian
}

func newGuard(allow []netip.Prefix) *guard {
	var v4, v6 []netip.Prefix
	for _, p := range allow {
		p = p.Masked()
		if p.Addr().Is4() {
			v4 = append(v4, p)
		} else {
			v6 = append(v6, p)
		}
	}
	return &guard{
		allow: allow,
		ssrf: ssrf.New(
			ssrf.WithAnyPort(),
			ssrf.WithNetworks("tcp4", "tcp6"),
			ssrf.WithAllowedV4Prefixes(v4...),
			ssrf.WithAllowedV6Prefixes(v6...),
		),
	}
}

// check refuses an address that is not public unicast and not allowed.
// An IPv4-mapped IPv6 address is judged by the IPv4 address inside it.
func (g *guard) check(addr netip.Addr) error {
	addr = addr.Unmap().WithZone("")
	if err := g.ssrf.SafeAddr(addr); err != nil {
		name, prefix := classify(addr)
		return &RefusedError{Addr: addr, What: name, Prefix: prefix}
	}
	return nil
}

// control is the dialer's ControlContext: it judges the address actually
// dialled, after DNS resolution, for every connection.
func (g *guard) control(_ context.Context, network, address string, _ syscall.RawConn) error {
	if network != "tcp4" && network != "tcp6" {
		return fmt.Errorf("%w: network %s", ErrRefused, network)
	}
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return fmt.Errorf("%w: cannot read the address %q", ErrRefused, address)
	}
	return g.check(ap.Addr())
}

// RefusedError is the cause of a request the guard refused because of
// the address it would reach: Addr is not a public address, but What
// (such as "loopback"), in the network Prefix, which the user may allow
// (fetch.Config.AllowNets).
type RefusedError struct {
	Addr   netip.Addr
	What   string
	Prefix netip.Prefix
}

func (r *RefusedError) Error() string {
	return fmt.Sprintf("refused: %s is %s (%s), not a public address", r.Addr, r.What, r.Prefix)
}

func (r *RefusedError) Unwrap() error { return ErrRefused }

// ranges names the networks the guard refuses, most specific first, for
// messages. Addresses in none of them are outside IPv6 global unicast.
var ranges = []struct {
	prefix netip.Prefix
	name   string
}{
	{netip.MustParsePrefix("255.255.255.255/32"), "the broadcast address"},
	{netip.MustParsePrefix("0.0.0.0/8"), `in "this network"`},
	{netip.MustParsePrefix("10.0.0.0/8"), "in a private network (RFC 1918)"},
	{netip.MustParsePrefix("100.64.0.0/10"), "in shared address space (CGNAT, RFC 6598)"},
	{netip.MustParsePrefix("127.0.0.0/8"), "a loopback address"},
	{netip.MustParsePrefix("169.254.0.0/16"), "link-local (where cloud metadata services live)"},
	{netip.MustParsePrefix("172.16.0.0/12"), "in a private network (RFC 1918)"},
	{netip.MustParsePrefix("192.0.0.0/24"), "reserved for IETF protocol assignments"},
	{netip.MustParsePrefix("192.0.2.0/24"), "reserved for documentation"},
	{netip.MustParsePrefix("192.88.99.0/24"), "a 6to4 relay address"},
	{netip.MustParsePrefix("192.168.0.0/16"), "in a private network (RFC 1918)"},
	{netip.MustParsePrefix("198.18.0.0/15"), "reserved for benchmarking"},
	{netip.MustParsePrefix("198.51.100.0/24"), "reserved for documentation"},
	{netip.MustParsePrefix("203.0.113.0/24"), "reserved for documentation"},
	{netip.MustParsePrefix("224.0.0.0/4"), "multicast"},
	{netip.MustParsePrefix("240.0.0.0/4"), "reserved"},
	{netip.MustParsePrefix("::1/128"), "the IPv6 loopback address"},
	{netip.MustParsePrefix("::/128"), "the unspecified address"},
	{netip.MustParsePrefix("64:ff9b::/96"), "a NAT64 address"},
	{netip.MustParsePrefix("fc00::/7"), "a unique local IPv6 address"},
	{netip.MustParsePrefix("fe80::/10"), "link-local"},
	{netip.MustParsePrefix("ff00::/8"), "multicast"},
	{netip.MustParsePrefix("2001::/32"), "a Teredo address"},
	{netip.MustParsePrefix("2001:db8::/32"), "reserved for documentation"},
	{netip.MustParsePrefix("2002::/16"), "a 6to4 address"},
}

func classify(addr netip.Addr) (string, netip.Prefix) {
	for _, r := range ranges {
		if r.prefix.Contains(addr) {
			return r.name, r.prefix
		}
	}
	for _, p := range append(ssrf.IPv4DeniedPrefixes, ssrf.IPv6DeniedPrefixes...) {
		if p.Contains(addr) {
			return "in a special-purpose range", p
		}
	}
	bits := 32
	if addr.Is6() {
		bits = 128
	}
	what := "special-purpose"
	if addr.Is6() && !ssrf.IPv6GlobalUnicast.Contains(addr) {
		what = "outside IPv6 global unicast"
	}
	return what, netip.PrefixFrom(addr, bits)
}

// checkURL refuses, before any connection, a URL heed must never fetch: a
// scheme other than http or https, credentials, no host, or a host that
// is (or that resolvers would read as) an address the guard refuses. It
// returns the URL with its scheme and host in canonical form: a host
// such as "2130706433", "0x7f.1", "127.1" or "017700000001" becomes the
// dotted IPv4 address it denotes.
func (g *guard) checkURL(raw string) (*url.URL, error) {
	u, err := readURL(raw)
	if err != nil {
		return nil, err
	}
	host := strings.TrimSuffix(u.Hostname(), ".")
	if addr, ok := hostAddr(host); ok {
		if err := g.check(addr); err != nil {
			return nil, err
		}
		canon := addr.Unmap().String()
		if addr.Is6() && !addr.Is4In6() {
			canon = "[" + addr.String() + "]"
		}
		if p := u.Port(); p != "" {
			canon += ":" + p
		}
		u.Host = canon
	}
	return u, nil
}

// hostAddr reads a URL host as an IP address, including the IPv4 forms
// that inet_aton and browsers accept: one to four parts, each decimal,
// octal (leading 0) or hexadecimal (leading 0x), the last filling the
// remaining bytes.
func hostAddr(host string) (netip.Addr, bool) {
	if a, err := netip.ParseAddr(host); err == nil {
		return a, true
	}
	parts := strings.Split(host, ".")
	if len(parts) > 4 {
		return netip.Addr{}, false
	}
	nums := make([]uint64, len(parts))
	for i, p := range parts {
		n, ok := parseIPv4Part(p)
		if !ok {
			return netip.Addr{}, false
		}
		nums[i] = n
	}
	var v uint64
	for i, n := range nums[:len(nums)-1] {
		if n > 255 {
			return netip.Addr{}, false
		}
		v |= n << (8 * (3 - i))
	}
	last := nums[len(nums)-1]
	if last >= 1<<(8*(5-len(nums))) {
		return netip.Addr{}, false
	}
	v |= last
	return netip.AddrFrom4([4]byte{byte(v >> 24), byte(v >> 16), byte(v >> 8), byte(v)}), true
}

func parseIPv4Part(p string) (uint64, bool) {
	base := 10
	switch {
	case p == "":
		return 0, false
	case len(p) > 2 && (p[:2] == "0x" || p[:2] == "0X"):
		p, base = p[2:], 16
	case len(p) > 1 && p[0] == '0':
		p, base = p[1:], 8
	}
	n, err := strconv.ParseUint(p, base, 32)
	return n, err == nil
}

// ParseNets reads CIDR prefixes such as "10.0.0.0/8" or "fd00::/8" (a bare
// address is read as a single-address prefix), for Config.AllowNets.
func ParseNets(specs []string) ([]netip.Prefix, error) {
	var out []netip.Prefix
	for _, s := range specs {
		s = strings.TrimSpace(s)
		if p, err := netip.ParsePrefix(s); err == nil {
			out = append(out, p.Masked())
			continue
		}
		a, err := netip.ParseAddr(s)
		if err != nil {
			return nil, fmt.Errorf("%q is not a CIDR prefix such as 10.0.0.0/8", s)
		}
		out = append(out, netip.PrefixFrom(a, a.BitLen()))
	}
	return out, nil
}
