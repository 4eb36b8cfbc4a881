package mcp

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/text"
)

// fencedDocs are Markdown documents with fenced code blocks where pages
// have them: at the top level, with ``` and ~~~ and info strings, in block
// quotes and list items, one fence inside a longer one, long lines, text
// of more than one byte a character, and a block left open at the end.
var fencedDocs = map[string]string{
	"top level": "# Install\n\nRun the installer, then check the version.\n\n```go title=\"main.go\"\n" + lines("fmt.Println(%d) // a line of Go", 30) + "```\n\nThen a paragraph that says what the code did, at some length, so that a cut may fall in it.\n\n~~~ text\n" + lines("plain %d", 20) + "~~~\n\nThe end.\n",
	"quoted":    "A quote follows.\n\n> The author wrote:\n>\n> ```python\n" + strings.ReplaceAll(lines("print(%d)", 25), "print", "> print") + "> ```\n>\n> and went on.\n\nAfter the quote.\n",
	"list":      "Steps:\n\n- Get it:\n\n  ```sh\n" + strings.ReplaceAll(lines("curl -O https://example.com/file%d", 20), "curl", "  curl") + "  ```\n\n- Run it.\n\n1. ```js\n" + strings.ReplaceAll(lines("run(%d);", 20), "run", "   run") + "   ```\n2. Done.\n",
	"nested":    "````md\nA fence shown as text:\n\n```go\n" + lines("x := %d", 20) + "```\n\n" + lines("more %d", 10) + "````\n\nAfter.\n",
	"long line": "Before.\n\n```\n" + strings.Repeat("x", 900) + "\n" + strings.Repeat("y", 300) + "\n```\n\n" + strings.Repeat("A very long paragraph of words. ", 40) + "\n",
	"unicode":   "潮の満ち引き、ĉiu tago.\n\n```text\n" + lines("潮 %d 🌊 ĉiu", 30) + "```\n\nFin 🌊.\n",
	"open end":  "Text before.\n\n```sh\n" + lines("echo %d", 30),
}

// lines is n lines made of format and their numbers.
func lines(format string, n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, format+"\n", i)
	}
	return b.String()
}

// mdBlocks is what CommonMark reads of a document's fenced code blocks:
// their info strings, their code (lines joined), and whether text after
// the document, past a blank line, would be read as code of one (a fence
// left open).
func mdBlocks(t *testing.T, md string) (infos []string, code string, open bool) {
	t.Helper()
	const sentinel = "zqxsentinelzqx"
	src := []byte(md + "\n\n" + sentinel + "\n")
	root := goldmark.DefaultParser().Parse(text.NewReader(src))
	var b strings.Builder
	err := ast.Walk(root, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		f, ok := n.(*ast.FencedCodeBlock)
		if !entering || !ok {
			return ast.WalkContinue, nil
		}
		infos = append(infos, string(f.Language(src)))
		for i := range f.Lines().Len() {
			seg := f.Lines().At(i)
			line := seg.Value(src)
			if bytes.Contains(line, []byte(sentinel)) {
				open = true
				continue
			}
			b.Write(line)
		}
		return ast.WalkContinue, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return infos, b.String(), open
}

// TestPartFences: a text cut into parts of any size reads, part by part,
// as Markdown that leaves no code block open; each part ends at a
// paragraph or line break where it can; its code is the text's code, in
// blocks of the same languages; and the parts, without the fence lines
// heed added, make up the text, each from where the last ended.
func TestPartFences(t *testing.T) {
	for name, doc := range fencedDocs {
		wholeInfos, wholeCode, _ := mdBlocks(t, doc)
		total := utf8.RuneCountInString(doc)
		for n := 40; n <= 600; n += 23 {
			var joined, code strings.Builder
			blocks, closed := 0, 0
			for start := 0; ; {
				p, err := part(doc, start, n)
				if err != nil {
					t.Fatalf("%s, parts of %d from %d: %v", name, n, start, err)
				}
				if got := utf8.RuneCountInString(p.Markdown); got > n {
					t.Errorf("%s, parts of %d from %d: %d characters", name, n, start, got)
				}
				infos, c, open := mdBlocks(t, p.Markdown)
				if open {
					t.Errorf("%s, parts of %d from %d: the part leaves a code block open:\n%s", name, n, start, p.Markdown)
				}
				for _, info := range infos {
					if !strings.Contains(strings.Join(wholeInfos, "\n"), info) {
						t.Errorf("%s, parts of %d from %d: a block of %q, which the text has not", name, n, start, info)
					}
				}
				blocks += len(infos)
				code.WriteString(c)
				body, ok := strings.CutPrefix(p.Markdown, p.FenceReopen)
				body, ok2 := strings.CutSuffix(body, p.FenceClose)
				if !ok || !ok2 || utf8.RuneCountInString(body) != p.Chars || p.StartIndex != start {
					t.Errorf("%s, parts of %d from %d: %+v", name, n, start, p)
				}
				if p.FenceClose != "" {
					closed++
				}
				joined.WriteString(body)
				if p.Remaining > 0 && !p.inLine && !strings.HasSuffix(body, "\n") {
					t.Errorf("%s, parts of %d from %d: a part ends within a line that was not cut: %q", name, n, start, body)
				}
				if p.Remaining == 0 {
					if p.StartIndex+p.Chars != total {
						t.Errorf("%s, parts of %d: the last ends at %d of %d", name, n, p.StartIndex+p.Chars, total)
					}
					break
				}
				start = p.NextStart
			}
			if joined.String() != doc {
				t.Errorf("%s, parts of %d: joined, the parts are not the text:\n%q", name, n, joined.String())
			}
			// A block cut in two is two blocks (the text's last block, left
			// open, is closed by its last part too); the code of the parts,
			// line breaks aside (a line cut within it is broken), is the
			// text's.
			if name == "open end" {
				closed--
			}
			if blocks != len(wholeInfos)+closed {
				t.Errorf("%s, parts of %d: %d code blocks in the parts, %d closed by heed; the text has %d", name, n, blocks, closed, len(wholeInfos))
			}
			if flat := func(s string) string { return strings.ReplaceAll(s, "\n", "") }; flat(code.String()) != flat(wholeCode) {
				t.Errorf("%s, parts of %d: the code of the parts is not the text's:\n%q\nwant\n%q", name, n, code.String(), wholeCode)
			}
		}
	}
}

// TestPartBreaks: a part ends at a paragraph break in its second half
// rather than a line break, at a line break rather than within a line,
// and within a line only when the line is longer than the part, at a
// character's boundary.
func TestPartBreaks(t *testing.T) {
	doc := "First paragraph.\n\nSecond, with two lines,\nthe second of them.\nA third line.\n"
	p, _ := part(doc, 0, 50)
	if p.Markdown != "First paragraph.\n\nSecond, with two lines,\n" {
		t.Errorf("a part of 50: %q; want it to end at the line break, the paragraph break being in its first half", p.Markdown)
	}
	p, _ = part(doc, 0, 62)
	if p.Markdown != "First paragraph.\n\nSecond, with two lines,\nthe second of them.\n" {
		t.Errorf("a part of 62: %q", p.Markdown)
	}
	long := strings.Repeat("潮", 100)
	p, _ = part(long, 0, 30)
	if p.Markdown != strings.Repeat("潮", 30) || !p.inLine || p.NextStart != 30 || !utf8.ValidString(p.Markdown) {
		t.Errorf("a line of 100 characters in parts of 30: %q %+v", p.Markdown, p)
	}
	p, _ = part(long, 90, 30)
	if p.Markdown != strings.Repeat("潮", 10) || p.inLine || p.Remaining != 0 {
		t.Errorf("its last part: %q %+v", p.Markdown, p)
	}
	if _, err := part(long, 100, 30); err == nil || !strings.Contains(err.Error(), "past the end") {
		t.Errorf("a part past the end: %v", err)
	}
}

// TestPartHostileFence: a fence whose marks are longer than a part can
// repeat, or whose info string is, does not stop the parts from going
// on, nor make one longer than it may be.
func TestPartHostileFence(t *testing.T) {
	for name, doc := range map[string]string{
		"long marks": strings.Repeat("`", 300) + "\n" + lines("code %d", 50) + strings.Repeat("`", 300) + "\nAfter.\n",
		"long info":  "```" + strings.Repeat("info", 200) + "\n" + lines("code %d", 50) + "```\nAfter.\n",
		"many":       strings.Repeat("```\n```\n", 300),
	} {
		for _, n := range []int{40, 100, 250} {
			var joined strings.Builder
			parts := 0
			for start := 0; ; parts++ {
				p, err := part(doc, start, n)
				if err != nil {
					t.Fatal(err)
				}
				if got := utf8.RuneCountInString(p.Markdown); got > n || p.Chars < 1 {
					t.Fatalf("%s, parts of %d from %d: %d characters, %d of the text", name, n, start, got, p.Chars)
				}
				joined.WriteString(strings.TrimSuffix(strings.TrimPrefix(p.Markdown, p.FenceReopen), p.FenceClose))
				if p.Remaining == 0 {
					break
				}
				start = p.NextStart
			}
			if joined.String() != doc {
				t.Errorf("%s, parts of %d: joined, the parts are not the text", name, n)
			}
		}
	}
}

// BenchmarkPart cuts the parts of a long page from their start to its
// end: the time a part takes grows with the text before it, so that a
// page in parts costs time linear in its size times its parts.
func BenchmarkPart(b *testing.B) {
	doc := strings.Repeat(fencedDocs["top level"], 200)
	total := utf8.RuneCountInString(doc)
	b.SetBytes(int64(len(doc)))
	for b.Loop() {
		for start := 0; start < total; start += 32_000 {
			if _, err := part(doc, start, 32_000); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// TestPartRandomFences: Markdown made at random of the lines where
// fences, block quotes and list items meet (indented, tabbed, empty,
// nested, interrupting a paragraph or not) is cut into parts none of
// which leaves a code block open, as CommonMark reads each part, and
// which join into the text.
func TestPartRandomFences(t *testing.T) {
	pieces := []string{"```", "```go", "~~~", "~~~~ x", "````", "> ", "- ", "1. ", "  ", "    ", "\t", "text", "code()", "", "> - ", "- > ", "* * *", "`", "~~", "   ```", "2) ", "> > "}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 1500 {
		var b strings.Builder
		for range 5 + rng.IntN(40) {
			for range 1 + rng.IntN(3) {
				b.WriteString(pieces[rng.IntN(len(pieces))])
			}
			b.WriteString("\n")
		}
		doc := b.String()
		for _, n := range []int{15, 40, 100} {
			var joined strings.Builder
			for start := 0; ; {
				p, err := part(doc, start, n)
				if err != nil {
					t.Fatal(err)
				}
				if _, _, open := mdBlocks(t, p.Markdown); open && !p.fenceLeftOpen {
					t.Fatalf("%q in parts of %d: the part from %d leaves a code block open:\n%q", doc, n, start, p.Markdown)
				}
				joined.WriteString(strings.TrimSuffix(strings.TrimPrefix(p.Markdown, p.FenceReopen), p.FenceClose))
				if p.Remaining == 0 {
					break
				}
				start = p.NextStart
			}
			if joined.String() != doc {
				t.Fatalf("%q in parts of %d: joined, the parts are not the text", doc, n)
			}
		}
	}
}
