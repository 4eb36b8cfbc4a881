package mcp

import (
	"encoding/json"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// calls follows the calls in flight on one channel from the client (a
// stdio session, or one streamable HTTP request) as the transport sees
// them, with their progress tokens, and which of them the client
// cancelled: once a transport has read a call's cancellation, it sends
// nothing more for it, neither progress nor the response, as the MCP
// specification asks. (The SDK stops the call's work, through its
// context, but still sends its response.) The zero value is ready; a call
// is forgotten when its response is sent or held back.
type calls struct {
	mu     sync.Mutex
	byID   map[jsonrpc.ID]*inflightCall
	tokens map[any]jsonrpc.ID
	// related: every message sent on the channel is about its calls (an
	// HTTP request's stream): one without a progress token of its own
	// is held back once they are all cancelled.
	related bool
}

type inflightCall struct {
	token     any // the progress token, or nil
	cancelled bool
}

// Methods the transports look at.
const (
	methodCancelled = "notifications/cancelled"
	methodProgress  = "notifications/progress"
)

// received notes a message from the client: a call, or a cancellation.
func (c *calls) received(msg jsonrpc.Message) {
	req, ok := msg.(*jsonrpc.Request)
	if !ok {
		return
	}
	switch {
	case req.IsCall():
		c.add(req)
	case req.Method == methodCancelled:
		if id, ok := cancelledID(req); ok {
			c.cancel(id)
		}
	}
}

// add follows a call. A call whose id is in flight already is refused by
// the SDK, which answers it without the id: the call in flight is kept.
func (c *calls) add(req *jsonrpc.Request) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, dup := c.byID[req.ID]; dup {
		return
	}
	if c.byID == nil {
		c.byID, c.tokens = map[jsonrpc.ID]*inflightCall{}, map[any]jsonrpc.ID{}
	}
	cl := &inflightCall{token: progressToken(req.Params, true)}
	c.byID[req.ID] = cl
	if cl.token != nil {
		c.tokens[cl.token] = req.ID
	}
}

// cancel marks a call in flight as cancelled; an id not in flight is
// nothing.
func (c *calls) cancel(id jsonrpc.ID) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if cl, ok := c.byID[id]; ok {
		cl.cancelled = true
	}
}

// sent reports whether a message the server is about to send is for a
// call the client cancelled, and so is to be held back. A response ends
// its call.
func (c *calls) sent(msg jsonrpc.Message) (drop bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	switch m := msg.(type) {
	case *jsonrpc.Response:
		cl, ok := c.byID[m.ID]
		if !ok {
			return false
		}
		delete(c.byID, m.ID)
		if cl.token != nil && c.tokens[cl.token] == m.ID {
			delete(c.tokens, cl.token)
		}
		return cl.cancelled
	case *jsonrpc.Request:
		if m.Method == methodProgress {
			if token := progressToken(m.Params, false); token != nil {
				if id, ok := c.tokens[token]; ok {
					return c.byID[id].cancelled
				}
			}
		}
		if !c.related || len(c.byID) == 0 {
			return false
		}
		for _, cl := range c.byID {
			if !cl.cancelled {
				return false
			}
		}
		return true
	}
	return false
}

// cancelledID is the id a notifications/cancelled names.
func cancelledID(req *jsonrpc.Request) (jsonrpc.ID, bool) {
	var p struct {
		RequestID any `json:"requestId"`
	}
	if json.Unmarshal(req.Params, &p) != nil {
		return jsonrpc.ID{}, false
	}
	id, err := jsonrpc.MakeID(p.RequestID)
	return id, err == nil && id.IsValid()
}

// progressToken is the progress token of a request's params (in _meta) or
// of a progress notification's: a string or a number, or nil.
func progressToken(params json.RawMessage, inMeta bool) any {
	var p struct {
		Meta struct {
			Token any `json:"progressToken"`
		} `json:"_meta"`
		Token any `json:"progressToken"`
	}
	if len(params) == 0 || json.Unmarshal(params, &p) != nil {
		return nil
	}
	token := p.Token
	if inMeta {
		token = p.Meta.Token
	}
	switch token.(type) {
	case string, float64: // comparable, and what the SDK sends back
		return token
	}
	return nil
}
