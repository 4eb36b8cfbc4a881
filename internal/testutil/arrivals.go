package testutil

import (
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// Arrival is one request an Arrivals server served.
type Arrival struct {
	At, End time.Time // when it came, and when its answer was written
	Host    string    // as the request named it
	Path    string
	Header  http.Header
}

// Arrivals is a loopback server that logs every request it serves, and
// counts how many were in flight at once: what a test of politeness
// reads. Each request is held for a while before it is handled, long
// enough for another to overlap it if one were let through.
type Arrivals struct {
	*httptest.Server
	mu       sync.Mutex
	log      []Arrival
	inflight atomic.Int32
	most     atomic.Int32
}

// NewArrivals starts an Arrivals server that holds each request for hold
// and then has h answer it; it is closed when the test ends.
func NewArrivals(tb testing.TB, hold time.Duration, h http.HandlerFunc) *Arrivals {
	return NewArrivalsOn(tb, "127.0.0.1:0", hold, h)
}

// NewArrivalsOn is NewArrivals, listening on addr.
func NewArrivalsOn(tb testing.TB, addr string, hold time.Duration, h http.HandlerFunc) *Arrivals {
	tb.Helper()
	a := &Arrivals{}
	l, err := net.Listen("tcp", addr)
	if err != nil {
		tb.Fatal(err)
	}
	a.Server = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := a.inflight.Add(1)
		defer a.inflight.Add(-1)
		for m := a.most.Load(); n > m && !a.most.CompareAndSwap(m, n); m = a.most.Load() {
		}
		a.mu.Lock()
		i := len(a.log)
		a.log = append(a.log, Arrival{At: time.Now(), Host: r.Host, Path: r.URL.Path, Header: r.Header.Clone()})
		a.mu.Unlock()
		defer func() {
			a.mu.Lock()
			a.log[i].End = time.Now()
			a.mu.Unlock()
		}()
		time.Sleep(hold)
		h(w, r)
	}))
	a.Server.Listener.Close()
	a.Server.Listener = l
	a.Server.Start()
	tb.Cleanup(a.Close)
	return a
}

// Log is the requests served so far, in the order they came.
func (a *Arrivals) Log() []Arrival {
	a.mu.Lock()
	defer a.mu.Unlock()
	return slices.Clone(a.log)
}

// MostInFlight is the most requests that were in flight at once.
func (a *Arrivals) MostInFlight() int { return int(a.most.Load()) }
