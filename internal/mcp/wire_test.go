package mcp

import (
	"bufio"
	"io"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

type rawWire struct {
	t     *testing.T
	inW   *io.PipeWriter
	lines chan string
}

// startRaw serves s on pipes, with heed's transport or (sdkT) the SDK's.
func startRaw(t *testing.T, s *Server, sdkT bool) *rawWire {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	w := &rawWire{t: t, inW: inW, lines: make(chan string, 1000)}
	go func() {
		if sdkT {
			s.mcp.Run(t.Context(), &sdk.IOTransport{Reader: inR, Writer: outW})
		} else {
			s.serveLines(t.Context(), inR, outW)
		}
		outW.Close()
	}()
	go func() {
		r := bufio.NewReaderSize(outR, 1<<20)
		for {
			line, err := r.ReadString('\n')
			if line != "" {
				w.lines <- strings.TrimRight(line, "\n")
			}
			if err != nil {
				close(w.lines)
				return
			}
		}
	}()
	t.Cleanup(func() { inW.Close() })
	return w
}

func (w *rawWire) send(s string) {
	if _, err := io.WriteString(w.inW, s); err != nil {
		w.t.Logf("write: %v", err)
	}
}

func (w *rawWire) init(version string) {
	w.t.Helper()
	w.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"` + version + `","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}` + "\n")
	select {
	case l := <-w.lines:
		if !strings.Contains(l, "protocolVersion") {
			w.t.Fatalf("initialize: %s", l)
		}
	case <-time.After(20 * time.Second):
		w.t.Fatal("no answer to initialize")
	}
	w.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n")
}

// answerTo is what the server writes for line, up to its answer to a
// ping sent after it (and, for a batch, its answer, which may follow).
func (w *rawWire) answerTo(line string, batch bool) []string {
	w.t.Helper()
	w.send(line + "\n")
	w.send(`{"jsonrpc":"2.0","id":"raw-ping","method":"ping"}` + "\n")
	var out []string
	pinged := false
	for {
		select {
		case l, ok := <-w.lines:
			if !ok {
				return append(out, "<session ended>")
			}
			if strings.Contains(l, `"raw-ping"`) {
				pinged = true
			} else {
				out = append(out, l)
			}
			if pinged && (!batch || len(out) > 0) {
				return out
			}
		case <-time.After(20 * time.Second):
			w.t.Fatalf("no answer after %.80q", line)
		}
	}
}

// A 1 MiB line holding a batch of 524,283 one-byte entries is answered
// with one error per entry: 104 MB of output, ~700 MB RSS in heed.
func TestBatchAnsweredOnce(t *testing.T) {
	s := newServer(t, Limits{}, loopback)
	w := startRaw(t, s, false)
	w.init("2025-06-18")
	n := (MaxMessage - 10) / 2
	line := "[" + strings.Repeat("1,", n-1) + "1]"
	out := 0
	for _, l := range w.answerTo(line, true) {
		out += len(l) + 1
	}
	if out > 4*len(line) {
		t.Errorf("a %d-byte batch line was answered with %d bytes (%.0fx the input)", len(line), out, float64(out)/float64(len(line)))
	}
}

// A response is never answered: not a null-id error response (what a
// client sends when it cannot read a message of the server's), nor one
// without an id.
func TestResponseNotAnswered(t *testing.T) {
	for _, line := range []string{
		`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}`,
		`{"jsonrpc":"2.0","error":{"code":-32600,"message":"Invalid Request"}}`,
	} {
		s := newServer(t, Limits{}, loopback)
		w := startRaw(t, s, false)
		w.init("2025-06-18")
		if got := w.answerTo(line, false); len(got) != 0 {
			t.Errorf("the response %s was answered: %s", line, got)
		}
	}
}
