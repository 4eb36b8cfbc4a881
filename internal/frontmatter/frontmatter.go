package frontmatter

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"

	"github.com/heedhq/heed"
)

// Writer builds a frontmatter block, one field at a time.
type Writer struct {
	b strings.Builder
}

// Field writes key: value, quoted; an empty value is left out.
func (w *Writer) Field(key, value string) {
	if value != "" {
		fmt.Fprintf(&w.b, "%s: %s\n", key, Quote(value))
	}
}

// Flag writes key: true when v; false is left out.
func (w *Writer) Flag(key string, v bool) {
	if v {
		fmt.Fprintf(&w.b, "%s: true\n", key)
	}
}

// List writes key: [a, b], each quoted; an empty list is left out.
func (w *Writer) List(key string, values []string) {
	if len(values) == 0 {
		return
	}
	quoted := make([]string, len(values))
	for i, v := range values {
		quoted[i] = Quote(v)
	}
	fmt.Fprintf(&w.b, "%s: [%s]\n", key, strings.Join(quoted, ", "))
}

// Lines writes key: and then each value, quoted, on a line of its own
// (a YAML block list); an empty list is left out. A value of printable
// characters is single-quoted, so that its double quotes (a line of
// JSON's) read as they are; any other, double-quoted (Quote).
func (w *Writer) Lines(key string, values []string) {
	if len(values) == 0 {
		return
	}
	fmt.Fprintf(&w.b, "%s:\n", key)
	for _, v := range values {
		if Quote(v) == `"`+strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(v)+`"` {
			fmt.Fprintf(&w.b, "  - '%s'\n", strings.ReplaceAll(v, "'", "''"))
		} else {
			fmt.Fprintf(&w.b, "  - %s\n", Quote(v))
		}
	}
}

// Snapshot writes a snapshot's fields, as a stash's file holds them:
// title, author, description, url, source, published, modified,
// fetched_at, tags, hash, etag, last_modified, notes, via and rendered,
// each left out when empty.
func (w *Writer) Snapshot(s *heed.Snapshot) {
	w.Field("title", s.Title)
	w.Field("author", s.Author)
	w.Field("description", s.Description)
	w.Field("url", s.URL)
	w.Field("source", s.Source)
	if !s.Published.IsZero() {
		w.Field("published", s.Published.UTC().Format(time.RFC3339))
	}
	if !s.Modified.IsZero() {
		w.Field("modified", s.Modified.UTC().Format(time.RFC3339))
	}
	if !s.FetchedAt.IsZero() {
		w.Field("fetched_at", s.FetchedAt.UTC().Format(time.RFC3339))
	}
	w.List("tags", s.Tags)
	if s.Hash != "" {
		w.Field("hash", "sha256:"+s.Hash)
	}
	w.Field("etag", s.ETag)
	w.Field("last_modified", s.LastModified)
	w.List("notes", s.Notes)
	w.List("via", s.Via)
	w.Flag("rendered", s.Rendered)
}

// Document returns the frontmatter and the body as one Markdown document.
func (w *Writer) Document(body string) string {
	var b strings.Builder
	b.WriteString("---\n")
	b.WriteString(w.b.String())
	b.WriteString("---\n\n")
	if body != "" {
		b.WriteString(body)
		b.WriteString("\n")
	}
	return b.String()
}

// Quote writes s as a YAML double-quoted scalar, escaping what YAML does
// not allow in one: control characters, DEL, C1 controls, the line and
// paragraph separators, the byte order mark and the noncharacters U+FFFE
// and U+FFFF.
func Quote(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\t':
			b.WriteString(`\t`)
		case r < 0x20 || r == 0x7f || 0x80 <= r && r <= 0x9f:
			fmt.Fprintf(&b, `\x%02X`, r)
		case r == 0x2028 || r == 0x2029 || r == 0xfffe || r == 0xffff || r == 0xfeff:
			fmt.Fprintf(&b, `\u%04X`, r)
		case r == utf8.RuneError:
			b.WriteString(`\uFFFD`)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// ErrNoFrontmatter is returned by Split for a document without one.
var ErrNoFrontmatter = errors.New("frontmatter: the document does not start with ---")

// Split separates a document into its frontmatter, decoded into v, and
// its body.
func Split(doc []byte, v any) (body string, err error) {
	front, body, err := Cut(doc)
	if err != nil {
		return "", err
	}
	if err := Decode(front, v); err != nil {
		return "", err
	}
	return body, nil
}

// maxKeys is the most keys a mapping of front matter may hold.
const maxKeys = 1000

// Decode decodes YAML front matter into v, in time and memory linear in
// its length. The YAML decoder compares each key of a mapping with every
// other and keeps an error for each pair that is equal, so that a
// document of repeated keys would cost memory quadratic in its length:
// the document is parsed into nodes first, and refused before it is
// decoded if a mapping repeats a key, holds more than maxKeys keys, or
// if it has an alias (which would decode a mapping once for each).
func Decode(front []byte, v any) error {
	var doc yaml.Node
	if err := yaml.Unmarshal(front, &doc); err != nil {
		return fmt.Errorf("frontmatter: %w", err)
	}
	type key struct {
		kind  yaml.Kind
		value string
	}
	seen := map[key]int{}
	for stack := []*yaml.Node{&doc}; len(stack) > 0; {
		n := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		switch n.Kind {
		case yaml.AliasNode:
			return fmt.Errorf("frontmatter: line %d: an alias, which front matter does not use", n.Line)
		case yaml.MappingNode:
			if len(n.Content) > 2*maxKeys {
				return fmt.Errorf("frontmatter: line %d: a mapping of more than %d keys", n.Line, maxKeys)
			}
			clear(seen)
			for i := 0; i+1 < len(n.Content); i += 2 {
				k := n.Content[i]
				if line, ok := seen[key{k.Kind, k.Value}]; ok {
					return fmt.Errorf("frontmatter: line %d: mapping key %q already defined at line %d", k.Line, k.Value, line)
				}
				seen[key{k.Kind, k.Value}] = k.Line
			}
		}
		stack = append(stack, n.Content...)
	}
	if len(doc.Content) == 0 {
		return nil // an empty document sets nothing
	}
	if err := doc.Decode(v); err != nil {
		return fmt.Errorf("frontmatter: %w", err)
	}
	return nil
}

// Cut separates a document into its frontmatter, not decoded, and its
// body.
func Cut(doc []byte) (front []byte, body string, err error) {
	rest, ok := bytes.CutPrefix(doc, []byte("---\n"))
	if !ok {
		return nil, "", ErrNoFrontmatter
	}
	front, after, ok := bytes.Cut(rest, []byte("\n---\n"))
	if !ok {
		return nil, "", errors.New("frontmatter: no closing ---")
	}
	return front, strings.TrimSuffix(strings.TrimPrefix(string(after), "\n"), "\n"), nil
}
