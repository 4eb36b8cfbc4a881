package mcp

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// MaxMessage is the longest message, in bytes, heed's MCP server reads on
// stdio. A longer line is answered with an error and skipped: no tool's
// arguments come near it.
const MaxMessage = 1 << 20

// lineTransport is heed's stdio transport: JSON-RPC 2.0 messages, one per
// line, as the MCP specification has them on stdio.
//
// The SDK's own stdio transport ends the session at the first message it
// cannot read (a line that is not JSON, a batch, a "jsonrpc" other than
// "2.0"), and every call in flight with it. This one answers such a
// message with the JSON-RPC error the specification gives it (-32700 for
// a line that is not JSON, -32600 for any other malformed message, with
// the message's id when it has one) and reads on: a line is a message, so
// after a bad one the next line starts afresh.
//
// It also sends nothing more for a call once the client has cancelled it
// (see calls).
type lineTransport struct {
	in  io.ReadCloser
	out io.Writer
	// wrote, if set, is called after each message the server wrote or
	// held back (dropped): tests wait on it.
	wrote func(msg jsonrpc.Message, dropped bool)
}

func (t *lineTransport) Connect(context.Context) (sdk.Connection, error) {
	c := &lineConn{
		in: t.in, out: t.out, wrote: t.wrote,
		incoming: make(chan jsonrpc.Message),
		closed:   make(chan struct{}),
	}
	go c.read()
	return c, nil
}

type lineConn struct {
	in    io.ReadCloser
	out   io.Writer
	wrote func(jsonrpc.Message, bool)

	writeMu sync.Mutex // one line at a time
	calls   calls

	incoming  chan jsonrpc.Message // closed when reading ends, readErr set
	readErr   error
	closed    chan struct{}
	closeOnce sync.Once
}

func (c *lineConn) SessionID() string { return "" }

// read reads lines until the input ends, passing on each message that is
// one and answering each that is not.
func (c *lineConn) read() {
	defer close(c.incoming)
	r := bufio.NewReaderSize(c.in, 64<<10)
	for {
		line, tooLong, err := readLine(r, MaxMessage)
		if msg := c.message(line, tooLong); msg != nil {
			c.calls.received(msg)
			select {
			case c.incoming <- msg:
			case <-c.closed:
				return
			}
		}
		if err != nil {
			c.readErr = err
			return
		}
	}
}

// readLine reads one line of at most max bytes, and the rest of a longer
// one, which it reports as too long and does not keep.
func readLine(r *bufio.Reader, max int) (line []byte, tooLong bool, err error) {
	for {
		frag, err := r.ReadSlice('\n')
		if !tooLong {
			if len(line)+len(frag) > max+1 { // +1: the newline
				line, tooLong = nil, true
			} else {
				line = append(line, frag...)
			}
		}
		if err != bufio.ErrBufferFull {
			return line, tooLong, err
		}
	}
}

// The JSON-RPC 2.0 errors for messages that cannot be read.
const (
	codeParseError     = -32700
	codeInvalidRequest = -32600
)

// message decodes one line: the message it holds, or nil when it holds
// none (a blank line) or one that cannot be read, which it answers.
func (c *lineConn) message(line []byte, tooLong bool) jsonrpc.Message {
	line = bytes.TrimSpace(line)
	switch {
	case tooLong:
		c.reject(nil, codeInvalidRequest, fmt.Sprintf("invalid request: the message is longer than %d bytes, the most heed's MCP server reads; it was skipped", MaxMessage))
		return nil
	case len(line) == 0:
		return nil
	case !json.Valid(line):
		c.reject(nil, codeParseError, "parse error: the line is not JSON (or holds more than one JSON value); heed's MCP server reads one JSON-RPC 2.0 message per line")
		return nil
	case line[0] == '[':
		c.rejectBatch()
		return nil
	}
	msg, id, response, why := decodeMessage(line)
	switch {
	case why != "" && response:
		return nil // a response is never answered, not even one that cannot be read
	case why != "":
		c.reject(id, codeInvalidRequest, "invalid request: "+why)
		return nil
	}
	return msg
}

// decodeMessage decodes a message that is valid JSON: the message, or the id
// to answer (nil when it has none that can be told) and what is wrong.
// response says the message has a result or an error and no method: a
// response from the client, which is never answered, whatever is wrong
// with it (a client that cannot read a message answers it with an error
// of null id; to answer that would start two peers answering each
// other's errors for ever).
func decodeMessage(data []byte) (msg jsonrpc.Message, id json.RawMessage, response bool, why string) {
	if data[0] != '{' {
		return nil, nil, false, "a JSON-RPC message is a JSON object"
	}
	var probe struct {
		Version json.RawMessage `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Method  json.RawMessage `json:"method"`
		Result  json.RawMessage `json:"result"`
		Error   json.RawMessage `json:"error"`
	}
	if err := json.Unmarshal(data, &probe); err != nil {
		return nil, nil, false, "a JSON-RPC message is a JSON object"
	}
	response = probe.Method == nil && (probe.Result != nil || probe.Error != nil)
	id, idOK := validID(probe.ID)
	var version, method string
	switch {
	case json.Unmarshal(probe.Version, &version) != nil || version != "2.0":
		return nil, id, response, `"jsonrpc" must be "2.0": heed's MCP server speaks JSON-RPC 2.0 only`
	case !idOK:
		return nil, nil, response, "the id must be a string or a whole number"
	case probe.Method != nil && json.Unmarshal(probe.Method, &method) != nil:
		return nil, id, response, "the method must be a string"
	case probe.Method == nil && id == nil:
		return nil, nil, response, "the message has neither a method (a request or notification) nor an id (a response)"
	}
	msg, err := jsonrpc.DecodeMessage(data)
	if err != nil {
		return nil, id, response, err.Error()
	}
	return msg, id, response, ""
}

// validID reports whether raw is an id heed can answer: absent or null
// (none: nil, true), a string, or a whole number a float64 holds exactly
// (the SDK reads numbers as float64).
func validID(raw json.RawMessage) (json.RawMessage, bool) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, true
	}
	if raw[0] == '"' {
		var s string
		return raw, json.Unmarshal(raw, &s) == nil
	}
	n, err := strconv.ParseInt(string(raw), 10, 64)
	if err != nil || n > 1<<53 || n < -(1<<53) {
		return nil, false
	}
	return raw, true
}

// rejectBatch answers a batch. MCP took JSON-RPC batches out of the
// protocol in its 2025-06-18 revision, and heed's server takes none. A
// batch is answered with one error, with a null id, whatever it holds:
// an answer for each entry would make a line of a million one-byte
// entries into a hundred times as much output.
func (c *lineConn) rejectBatch() {
	c.reject(nil, codeInvalidRequest, "invalid request: heed's MCP server takes no JSON-RPC batches (MCP took them out in 2025-06-18): send each message on a line of its own")
}

// errorMessage is a JSON-RPC error response; a nil id is null.
func errorMessage(id json.RawMessage, code int, msg string) json.RawMessage {
	if id == nil {
		id = json.RawMessage("null")
	}
	type wireError struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	}
	data, _ := json.Marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   wireError       `json:"error"`
	}{"2.0", id, wireError{code, msg}})
	return data
}

func (c *lineConn) reject(id json.RawMessage, code int, msg string) {
	c.writeLine(errorMessage(id, code, msg))
}

func (c *lineConn) writeLine(data []byte) error {
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	_, err := c.out.Write(append(data, '\n'))
	return err
}

func (c *lineConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	select {
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-c.closed:
		return nil, io.EOF
	case msg, ok := <-c.incoming:
		if !ok {
			if c.readErr == nil || errors.Is(c.readErr, io.EOF) {
				return nil, io.EOF
			}
			return nil, c.readErr
		}
		return msg, nil
	}
}

func (c *lineConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if c.calls.sent(msg) {
		if c.wrote != nil {
			c.wrote(msg, true)
		}
		return nil // for a call the client cancelled
	}
	data, err := jsonrpc.EncodeMessage(msg)
	if err != nil {
		return err
	}
	err = c.writeLine(data)
	if c.wrote != nil {
		c.wrote(msg, false)
	}
	return err
}

func (c *lineConn) Close() error {
	var err error
	c.closeOnce.Do(func() {
		close(c.closed)
		err = c.in.Close()
	})
	return err
}
