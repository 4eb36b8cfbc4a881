package fetch

import (
	"context"
	"errors"
	"net"
	"net/netip"
	"strings"
	"syscall"
	"testing"
	"time"
)

type failing struct{}

func (failing) LookupNetIP(context.Context, string, string) ([]netip.Addr, error) {
	return nil, errors.New("asked the next resolver")
}

func TestParseResolve(t *testing.T) {
	names, err := ParseResolve([]string{"Docs.Internal.:10.0.0.5", "docs.internal:[::1]", "v6.internal:fd00::1"})
	if err != nil {
		t.Fatal(err)
	}
	if got := names["docs.internal"]; len(got) != 2 || got[0] != netip.MustParseAddr("10.0.0.5") || got[1] != netip.MustParseAddr("::1") {
		t.Errorf("docs.internal: %v", got)
	}
	if got := names["v6.internal"]; len(got) != 1 || got[0] != netip.MustParseAddr("fd00::1") {
		t.Errorf("v6.internal: %v", got)
	}
	for _, bad := range []string{"docs.internal", ":10.0.0.5", "docs.internal:443:10.0.0.5x", "docs.internal:example.com", "a b:10.0.0.1"} {
		if _, err := ParseResolve([]string{bad}); err == nil || !strings.Contains(err.Error(), "NAME:ADDRESS") {
			t.Errorf("%q: %v", bad, err)
		}
	}
}

func TestStaticResolver(t *testing.T) {
	s := &Static{Names: map[string][]netip.Addr{"a.test": {netip.MustParseAddr("10.0.0.1"), netip.MustParseAddr("fd00::1")}}, Next: failing{}}
	got, err := s.LookupNetIP(context.Background(), "ip4", "A.test.")
	if err != nil || len(got) != 1 || got[0] != netip.MustParseAddr("10.0.0.1") {
		t.Errorf("ip4 a.test: %v, %v", got, err)
	}
	got, err = s.LookupNetIP(context.Background(), "ip", "a.test")
	if err != nil || len(got) != 2 {
		t.Errorf("ip a.test: %v, %v", got, err)
	}
	if _, err := s.LookupNetIP(context.Background(), "ip", "b.test"); err == nil {
		t.Error("a name it does not hold was not asked of the next resolver")
	}
}

// A name resolved to a non-public address is refused unless its network
// is allowed: the setting does not widen the guard.
func TestStaticResolverGuarded(t *testing.T) {
	s := &Static{Names: map[string][]netip.Addr{"inside.test": {netip.MustParseAddr("127.0.0.1")}}, Next: failing{}}
	c := New(Config{Resolver: s, Retries: -1})
	_, err := c.Get(context.Background(), Request{URL: "http://inside.test:1/"})
	if !errors.Is(err, ErrRefused) {
		t.Errorf("a name resolved to loopback, without --allow-net: %v", err)
	}
}

// With ResetOnClose, a request given up closes its connection with a
// reset: the server's read fails at once ("connection reset"), where a
// plain close would end it with EOF after anything still unsent.
func TestResetOnClose(t *testing.T) {
	for _, reset := range []bool{false, true} {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		got := make(chan error, 1)
		go func() {
			conn, err := ln.Accept()
			if err != nil {
				got <- err
				return
			}
			defer conn.Close()
			buf := make([]byte, 4096)
			for {
				// The request comes, and no answer: the client gives up.
				if _, err := conn.Read(buf); err != nil {
					got <- err
					return
				}
			}
		}()
		c, _ := newClient(t, Config{ResetOnClose: reset, Retries: -1})
		ctx, cancel := context.WithTimeout(t.Context(), 200*time.Millisecond)
		_, err = c.Get(ctx, Request{URL: "http://" + ln.Addr().String() + "/slow"})
		cancel()
		if err == nil {
			t.Fatal("a request without an answer succeeded")
		}
		readErr := <-got
		ln.Close()
		if isReset := errors.Is(readErr, syscall.ECONNRESET); isReset != reset {
			t.Errorf("ResetOnClose %v: the server's read ended with %v", reset, readErr)
		}
	}
}
