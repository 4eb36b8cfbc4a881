package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// MinChars is the least budget a call may ask for (max_chars): a result
// holds heed's own words besides what it lists or quotes, and the least
// of what it lists.
const MinChars = 4_000

// A tool's result is sized for a model's context: every tool takes
// max_chars, the most characters its whole result may take as the client
// receives it (the result as JSON, its text and its structured content
// together, each character escaped as JSON escapes it), DefaultChars when
// the agent does not say, never more than the user's MaxChars, never less
// than MinChars. A page's part, a list of matches, hits, sources or
// skipped URLs is cut to fit, and the result says so, with where the rest
// is (next_start_index and version, or next_cursor).

// chars settles a call's budget: the default when the agent gives none,
// the user's limit when it asks for more (noted, if notes is not nil).
func (s *Server) chars(asked int, notes *[]string) int {
	limit := s.cfg.Limits.MaxChars
	switch {
	case asked <= 0:
		return min(DefaultChars, limit)
	case asked > limit:
		if notes != nil {
			*notes = append(*notes, fmt.Sprintf("max_chars %d was lowered to %d, the limit the user set", asked, limit))
		}
		return limit
	}
	return max(asked, MinChars)
}

// resultChars is how many characters a tool's result takes as the client
// receives it: the result as JSON, with text as its text content and out
// as its structured content, escaped as the SDK escapes them (both as
// encoding/json does, HTML's <, > and & too), with what the SDK adds to
// every result (sdkAdds).
func resultChars(text string, out any) int {
	structured, err := json.Marshal(out)
	if err != nil {
		panic(err) // the output types are fixed: a test catches this
	}
	res := &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: text}}, StructuredContent: json.RawMessage(structured)}
	return sdkChars(res)
}

// sdkAdds is what the SDK adds to a result besides its _meta: a
// resultType, for clients of the protocol's versions that have one.
const sdkAdds = len(`,"resultType":"complete"`)

// sdkChars is how many characters a result takes as the SDK sends it:
// with the server's implementation in its _meta, and a resultType.
func sdkChars(res *sdk.CallToolResult) int {
	res.Meta = sdk.Meta{sdk.MetaKeyServerInfo: implementation}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(res); err != nil {
		panic(err)
	}
	return utf8.RuneCount(bytes.TrimSuffix(b.Bytes(), []byte("\n"))) + sdkAdds
}

// errorChars is how many characters an error's result takes as the
// client receives it.
func errorChars(msg string) int {
	return sdkChars(&sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: msg}}, IsError: true})
}

// jsonChars is how many characters r takes in a JSON string, escaped as
// encoding/json escapes it: HTML's <, > and & too, as the SDK has them.
func jsonChars(r rune) int {
	switch {
	case r == '"' || r == '\\' || r == '\n' || r == '\r' || r == '\t':
		return 2
	case r < 0x20 || r == '\u2028' || r == '\u2029' || r == utf8.RuneError:
		return 6
	case r == '<' || r == '>' || r == '&':
		return 6
	}
	return 1
}

// stringChars is how many characters s takes in a JSON string, without
// its quotes.
func stringChars(s string) int {
	n := 0
	for _, r := range s {
		n += jsonChars(r)
	}
	return n
}

// charsWithin is how many characters of text, from character start, fit
// in room characters of a result that holds them twice: in its text and
// in its structured content.
func charsWithin(text string, start, room int) int {
	i, n, used := 0, 0, 0
	for _, r := range text {
		if i < start {
			i++
			continue
		}
		used += 2 * jsonChars(r)
		if used > room {
			break
		}
		n++
	}
	return n
}

// fitPart cuts the part of text from character start that fits a result
// of at most budget characters: render makes the result of a part, its
// text and its structured content. The result without the part's
// Markdown is measured once; the Markdown gets the rest, each character
// counted as JSON escapes it, and the part is cut as part cuts it. It is
// measured again, and cut shorter if the fence lines it added or its
// numbers took more than they were given.
func fitPart(text string, start, budget int, render func(Part) (string, any)) (Part, error) {
	total := utf8.RuneCountInString(text)
	if start > 0 && start >= total {
		return part(text, start, 1) // its error
	}
	// The numbers as long as they can be.
	empty := Part{StartIndex: start, Chars: total, TotalChars: total, Remaining: total, NextStart: total}
	room := budget - resultChars(render(empty))
	n := charsWithin(text, start, room)
	var p Part
	for range 16 {
		var err error
		if p, err = part(text, start, n); err != nil {
			return p, err
		}
		size := resultChars(render(p))
		if size <= budget || n <= 1 {
			break
		}
		// Fewer characters, by as many as the overshoot takes at the
		// most a character can (twice six), and one at least.
		room -= size - budget
		n = max(1, min(charsWithin(text, start, room), n-max(1, (size-budget)/12)))
	}
	return p, nil
}

// itemChars is how many characters an item of a list result takes: its
// line in the text and its element of the structured content.
func itemChars(line string, elem any) int {
	b, err := json.Marshal(elem)
	if err != nil {
		panic(err)
	}
	return stringChars(line) + utf8.RuneCount(b) + 1 // and a comma
}

// fitItems is the items that fit in room characters, from the first:
// show gives an item's line in the text and its element in the structured
// content, its long strings cut to at most max characters (0: not cut).
// An item larger than room on its own is shown with its strings cut
// until it fits, if it is the first: every page of a list holds one item
// at least, and so goes on.
func fitItems[T any](room int, items []T, show func(item T, max int) (string, T)) (lines []string, shown []T) {
	for _, it := range items {
		line, el := show(it, 0)
		c := itemChars(line, el)
		if c > room && len(shown) == 0 {
			for cap := max(room/8, 16); c > room && cap >= 1; cap /= 2 {
				line, el = show(it, cap)
				c = itemChars(line, el)
			}
		}
		if c > room && len(shown) > 0 {
			break
		}
		lines, shown, room = append(lines, line), append(shown, el), room-c
	}
	return lines, shown
}

// cutTo is s cut to at most max characters, ending in "…" if it was
// cut; s as it is when max is 0.
func cutTo(s string, max int) string {
	if max <= 0 || utf8.RuneCountInString(s) <= max {
		return s
	}
	return cutChars(s, max-1) + "…"
}

// shrink cuts the longest of strs, and the next longest, until size()
// is at most max, but none to fewer than floor characters: each cut
// string ends in "…". It reports whether it cut any. Every character cut
// makes size() smaller by one at least, so it cuts each string once or
// twice.
func shrink(max, floor int, size func() int, strs ...*string) bool {
	cut := false
	for range 4 * len(strs) {
		over := size() - max
		if over <= 0 {
			break
		}
		var longest *string
		n := floor
		for _, s := range strs {
			if c := utf8.RuneCountInString(*s); c > n {
				longest, n = s, c
			}
		}
		if longest == nil {
			break
		}
		*longest = cutChars(*longest, max0(n-over-1, floor-1)) + "…"
		cut = true
	}
	return cut
}

// minShrunk is the fewest characters fitEnvelope leaves of a string,
// unless the budget is too small for that: a title or a URL cut shorter
// says too little to be worth its place.
const minShrunk = 80

// fitEnvelope cuts the strings of what a result says besides its part or
// its list (a title, a URL, a scope), when they take too much of its
// budget: to three quarters of it, none to fewer than minShrunk
// characters; and, if that is not enough, to seven eighths, as short as
// it takes. The part or the list gets the rest. It reports whether it
// cut any.
func fitEnvelope(budget int, size func() int, strs ...*string) bool {
	cut := shrink(budget*3/4, minShrunk, size, strs...)
	return shrink(budget*7/8, 1, size, strs...) || cut
}

// shrunk is the note of a result whose strings were cut to fit its
// budget.
const shrunk = "strings longer than max_chars allows (a title, a URL, a line) were cut, each ending in …"

// budgeted is the arguments of a tool: each tool takes max_chars.
type budgeted interface{ askedChars() int }

func (in FetchInput) askedChars() int   { return in.MaxChars }
func (in CrawlInput) askedChars() int   { return in.MaxChars }
func (in GrepInput) askedChars() int    { return in.MaxChars }
func (in SearchInput) askedChars() int  { return in.MaxChars }
func (in ReadInput) askedChars() int    { return in.MaxChars }
func (in SourcesInput) askedChars() int { return in.MaxChars }

// bounded holds a tool's result to its budget. An error is cut to fit
// (a page can make one long: a redirect's target, a Content-Type); a
// result larger than its budget is a fault of heed's, logged, and the
// agent told so rather than sent more than it asked for.
func bounded[In budgeted, Out any](s *Server, tool string, h sdk.ToolHandlerFor[In, Out]) sdk.ToolHandlerFor[In, Out] {
	return func(ctx context.Context, req *sdk.CallToolRequest, in In) (*sdk.CallToolResult, Out, error) {
		res, out, err := h(ctx, req, in)
		budget := s.chars(in.askedChars(), nil)
		if err != nil {
			return res, out, fitError(err, budget)
		}
		text := ""
		if res != nil && len(res.Content) == 1 {
			if tc, ok := res.Content[0].(*sdk.TextContent); ok {
				text = tc.Text
			}
		}
		if size := resultChars(text, out); size > budget {
			var zero Out
			return nil, zero, s.internal("fit "+tool+"'s result to its budget", fmt.Errorf("%d characters, over max_chars %d", size, budget))
		}
		return res, out, nil
	}
}

// fitError is err, its message cut to fit a result of budget
// characters.
func fitError(err error, budget int) error {
	msg := err.Error()
	if errorChars(msg) <= budget {
		return err
	}
	shrink(budget, 1, func() int { return errorChars(msg) }, &msg)
	return errors.New(msg)
}

// noteLines writes a result's notes as its text ends them, one line each:
// "Note: ...".
func noteLines(notes []string) string {
	var b strings.Builder
	for _, note := range notes {
		b.WriteString("Note: " + note + ".\n")
	}
	return b.String()
}
