package mcp

import (
	"context"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/heedhq/heed/fetch"
)

// resetConn answers a request by resetting its connection.
func resetConn(w http.ResponseWriter) {
	conn, _, _ := w.(http.Hijacker).Hijack()
	conn.(*net.TCPConn).SetLinger(0)
	conn.Close()
}

// localAddress is a local or remote address as net.OpError shows it.
var localAddress = regexp.MustCompile(`127\.0\.0\.1:\d+->|->127\.0\.0\.1|tcp 127\.0\.0\.1:\d+`)

// TestCrawlDetailWithoutAddresses: a page of a crawl whose connection is
// reset is told as web_fetch tells it, without the machine's addresses.
func TestCrawlDetailWithoutAddresses(t *testing.T) {
	site := newSite(t)
	site.set("/", html("Start", []string{"The start page, with words enough to be the content."}, "/reset"))
	site.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/reset" {
			resetConn(w)
			return
		}
		site.serve(w, r)
	})
	s := newServer(t, Limits{}, loopback)
	cs := connect(t, s, nil)
	var out CrawlOutput
	text, isErr := call(t, cs, "web_crawl", map[string]any{"url": site.URL + "/", "skipped_reason": "failed"}, &out)
	if isErr || localAddress.MatchString(text) || len(out.Skips) != 1 {
		t.Fatalf("web_crawl: error %v, %q", isErr, text)
	}
	d := out.Skips[0].Detail
	if localAddress.MatchString(d) || !strings.HasSuffix(d, "read: connection reset by peer") {
		t.Errorf("the reset page's detail: %q", d)
	}
	fetched, isErr := call(t, cs, "web_fetch", map[string]any{"url": site.URL + "/reset"}, nil)
	if !isErr || !strings.Contains(fetched, "read: connection reset by peer. This may pass") {
		t.Errorf("web_fetch of the reset page: %v %q", isErr, fetched)
	}
}

// afterStart resolves every name to the loopback until the start page
// has been served, and then times out as a system resolver does, naming
// its own address. It asks no one.
type afterStart struct{ served *atomic.Bool }

func (f afterStart) LookupNetIP(_ context.Context, _, host string) ([]netip.Addr, error) {
	if !f.served.Load() {
		return []netip.Addr{netip.MustParseAddr("127.0.0.1")}, nil
	}
	return nil, &net.DNSError{Err: "i/o timeout", Name: host, Server: "10.255.255.53:53", IsTimeout: true}
}

// TestCrawlDetailWithoutResolver: a page of a crawl whose name lookup
// fails is told without the resolver's address.
func TestCrawlDetailWithoutResolver(t *testing.T) {
	site := newSite(t)
	site.set("/", html("Start", []string{"The start page, with words enough to be the content."}, "/next"))
	site.set("/next", html("Next", []string{"The next page, with words enough to be the content."}))
	var served atomic.Bool
	site.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Connection", "close") // every request looks the name up
		site.serve(w, r)
		if r.URL.Path == "/" {
			served.Store(true)
		}
	})
	s := testServer(t, fetch.Config{Retries: -1, AllowNets: loopback, Resolver: afterStart{&served}}, 0, Limits{}, nil)
	cs := connect(t, s, nil)
	u := strings.Replace(site.URL, "127.0.0.1", "site.test", 1)
	var out CrawlOutput
	text, isErr := call(t, cs, "web_crawl", map[string]any{"url": u + "/", "skipped_reason": "failed"}, &out)
	if isErr || strings.Contains(text, "10.255.255.53") || out.Failed != 1 || len(out.Skips) != 1 {
		t.Fatalf("web_crawl: error %v, %q", isErr, text)
	}
	if d := out.Skips[0].Detail; strings.Contains(d, "10.255.255.53") || !strings.HasSuffix(d, "looking up the name site.test timed out") {
		t.Errorf("the failed page's detail: %q", d)
	}
}

// TestProxyWithoutAddress: a proxy (the user's) that does not answer is
// told without its address. Nothing listens at the proxy's address, on
// the loopback, so no request leaves the machine.
func TestProxyWithoutAddress(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	s := testServer(t, fetch.Config{Retries: -1, Proxy: &url.URL{Scheme: "http", Host: addr}}, 0, Limits{}, nil)
	text, isErr := call(t, connect(t, s, nil), "web_fetch", map[string]any{"url": "http://93.184.215.14/"}, nil)
	if !isErr || strings.Contains(text, addr) || !strings.Contains(text, "proxyconnect: dial: connection refused") {
		t.Errorf("web_fetch through a proxy that does not answer: %v %q", isErr, text)
	}
}

func TestClean(t *testing.T) {
	for in, want := range map[string]string{
		`Get "http://a.test/": read tcp 127.0.0.1:51530->127.0.0.1:40747: read: connection reset by peer`: `Get "http://a.test/": read: connection reset by peer`,
		`Get "http://a.test/": dial tcp [::1]:8080: connect: connection refused`:                          `Get "http://a.test/": dial: connection refused`,
		`Get "http://a.test/": dial tcp 192.0.2.1:80: i/o timeout`:                                        `Get "http://a.test/": dial: timed out`,
		`Get "http://a.test/": lookup a.test on 10.255.255.53:53: no such host`:                           `Get "http://a.test/": the name a.test does not resolve`,
		`Get "http://a.test/": lookup a.test: server misbehaving; a hint`:                                 `Get "http://a.test/": the name a.test could not be looked up; a hint`,
		`robots.txt: Disallow: /private (line 3)`:                                                         `robots.txt: Disallow: /private (line 3)`,
	} {
		if got := clean(in); got != want {
			t.Errorf("clean(%q) = %q, want %q", in, got, want)
		}
	}
}
