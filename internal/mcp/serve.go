package mcp

import (
	"context"
	"errors"
	"net"
	"net/http"
	"time"

	"golang.org/x/net/netutil"
)

// Bounds of the HTTP server, for HTTPOptions left at zero.
const (
	// DefaultMaxConns is the most connections served at once; more wait
	// to be accepted until one closes.
	DefaultMaxConns = 128
	// DefaultReadTimeout bounds reading one request, its headers and its
	// body; a call's response then streams for as long as the call runs.
	DefaultReadTimeout = 30 * time.Second
	// DefaultIdleTimeout is how long a connection with no request on it
	// is kept open for the next.
	DefaultIdleTimeout = time.Minute
)

// shutdownWait bounds how long Serve waits, once its context ends, for
// the requests in flight before it closes their connections.
const shutdownWait = 5 * time.Second

// Serve serves MCP over streamable HTTP at /mcp on ln, with the handler
// of HTTPHandler, until ctx ends; then it stops accepting, waits a while
// for the requests in flight and closes every connection.
//
// It holds at most o.MaxConns connections at once (further ones wait to
// be accepted), closes a connection whose request is not read within
// o.ReadTimeout or that is idle for o.IdleTimeout, and closes a
// connection once it has refused its request (401, 403), so that a
// client without the token cannot hold connections open.
func (s *Server) Serve(ctx context.Context, ln net.Listener, o HTTPOptions) error {
	o.fill()
	mux := http.NewServeMux()
	mux.Handle("/mcp", s.HTTPHandler(o))
	hs := &http.Server{
		Handler:           mux,
		ReadHeaderTimeout: o.ReadTimeout,
		ReadTimeout:       o.ReadTimeout,
		IdleTimeout:       o.IdleTimeout,
		ConnState:         s.connState,
	}
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(netutil.LimitListener(ln, o.MaxConns)) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
		shutdown, cancel := context.WithTimeout(context.Background(), shutdownWait)
		defer cancel()
		if err := hs.Shutdown(shutdown); err != nil && !errors.Is(err, http.ErrServerClosed) {
			hs.Close()
		}
		return nil
	}
}
