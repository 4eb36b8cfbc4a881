package stash

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"unicode"
)

// Query is a full-text search.
type Query struct {
	// Text is what to look for: words (all must match, in any form that
	// stems alike), "quoted phrases", and a trailing * for a prefix.
	Text   string
	Source string // only this source, if set
	Limit  int    // 0 means 10
}

// ErrEmptyQuery is returned for a query without a word to look for.
var ErrEmptyQuery = errors.New("stash: nothing to search for")

// Hit is one search result, best first.
type Hit struct {
	ID      string  `json:"id"`
	URL     string  `json:"url"`
	Title   string  `json:"title"`
	Source  string  `json:"source"`
	Snippet string  `json:"snippet"`
	Score   float64 `json:"score"` // higher is better
	Path    string  `json:"path"`
}

// Search ranks the snapshots that match q by BM25, a title match weighing
// five times a body match (the index's rank function), with a snippet of
// each around what matched.
func (s *Stash) Search(ctx context.Context, q Query) ([]Hit, error) {
	match := ftsQuery(q.Text)
	if match == "" {
		return nil, fmt.Errorf("%w in %q", ErrEmptyQuery, q.Text)
	}
	if q.Limit <= 0 {
		q.Limit = 10
	}
	// Rank in the full-text index alone, without snippets and without
	// joining every match to its document: the few hits shown are looked
	// up, and their snippets made, after. (A source filter needs the join.)
	var rows *sql.Rows
	var err error
	if q.Source == "" {
		rows, err = s.db.QueryContext(ctx, `
			SELECT d.rowid, d.id, d.url, d.title, d.source, d.path, top.rank
			FROM (SELECT rowid, rank FROM fts WHERE fts MATCH ? ORDER BY rank LIMIT ?) AS top
			JOIN docs d ON d.rowid = top.rowid
			WHERE d.state = 'ok' ORDER BY top.rank`, match, q.Limit)
	} else {
		rows, err = s.db.QueryContext(ctx, `
			SELECT fts.rowid, d.id, d.url, d.title, d.source, d.path, fts.rank
			FROM fts JOIN docs d ON d.rowid = fts.rowid
			WHERE fts MATCH ? AND d.state = 'ok' AND d.source = ?
			ORDER BY fts.rank LIMIT ?`, match, q.Source, q.Limit)
	}
	if err != nil {
		return nil, fmt.Errorf("stash: search: %w", err)
	}
	var out []Hit
	var rowids []int64
	for rows.Next() {
		var h Hit
		var rowid int64
		var rank float64
		if err := rows.Scan(&rowid, &h.ID, &h.URL, &h.Title, &h.Source, &h.Path, &rank); err != nil {
			rows.Close()
			return nil, fmt.Errorf("stash: search: %w", err)
		}
		h.Score = -rank // bm25 is lower for better matches
		out = append(out, h)
		rowids = append(rowids, rowid)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("stash: search: %w", err)
	}
	words := queryWords(q.Text)
	for i, rowid := range rowids {
		var body string
		if err := s.db.QueryRowContext(ctx, `SELECT body FROM fts WHERE rowid = ?`, rowid).Scan(&body); err != nil {
			return nil, fmt.Errorf("stash: search: %w", err)
		}
		out[i].Snippet = snippet(body, words, 16)
	}
	return out, nil
}

// queryWords are the words of a query, lower-cased and roughly stemmed,
// for marking them in snippets.
func queryWords(text string) []string {
	var out []string
	for _, w := range strings.FieldsFunc(strings.ToLower(text), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsNumber(r) }) {
		out = append(out, stem(w))
	}
	return out
}

// stem cuts the commonest English endings, so that "tides" marks "tide"
// and "rising" marks "rise" in a snippet (the index itself stems properly).
func stem(w string) string {
	for _, suffix := range []string{"ing", "ed", "es", "s", "e"} {
		if len(w) > len(suffix)+2 && strings.HasSuffix(w, suffix) {
			return w[:len(w)-len(suffix)]
		}
	}
	return w
}

// snippet is the window of about n words of body around the first word
// that matches the query, with the matching words in bold.
func snippet(body string, words []string, n int) string {
	fields := strings.Fields(body)
	matches := func(f string) bool {
		t := strings.ToLower(strings.TrimFunc(f, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsNumber(r) }))
		for _, w := range words {
			if w != "" && strings.HasPrefix(t, w) {
				return true
			}
		}
		return false
	}
	first := 0
	for i, f := range fields {
		if matches(f) {
			first = i
			break
		}
	}
	from := max(0, first-n/4)
	to := min(len(fields), from+n)
	var b strings.Builder
	if from > 0 {
		b.WriteString("…")
	}
	for i := from; i < to; i++ {
		if i > from {
			b.WriteByte(' ')
		}
		f := fields[i]
		if matches(f) {
			// Bold the word, not the punctuation around it.
			core := strings.TrimFunc(f, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsNumber(r) })
			at := strings.Index(f, core)
			b.WriteString(f[:at] + "**" + core + "**" + f[at+len(core):])
		} else {
			b.WriteString(f)
		}
	}
	if to < len(fields) {
		b.WriteString("…")
	}
	return b.String()
}

// ftsQuery turns what a person types into an FTS5 query that cannot be a
// syntax error: every word and phrase is quoted, a trailing * is kept as a
// prefix search, and operators are words like any other.
func ftsQuery(text string) string {
	var terms []string
	for len(text) > 0 {
		text = strings.TrimLeftFunc(text, unicode.IsSpace)
		if text == "" {
			break
		}
		var term string
		if text[0] == '"' {
			end := strings.IndexByte(text[1:], '"')
			if end < 0 {
				term, text = text[1:], ""
			} else {
				term, text = text[1:end+1], text[end+2:]
			}
		} else {
			end := strings.IndexFunc(text, unicode.IsSpace)
			if end < 0 {
				end = len(text)
			}
			term, text = text[:end], text[end:]
		}
		prefix := strings.HasSuffix(term, "*")
		term = strings.TrimRight(term, "*")
		words := strings.FieldsFunc(term, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsNumber(r) })
		if len(words) == 0 {
			continue
		}
		q := `"` + strings.Join(words, " ") + `"`
		if prefix {
			q += "*"
		}
		terms = append(terms, q)
	}
	return strings.Join(terms, " ")
}
