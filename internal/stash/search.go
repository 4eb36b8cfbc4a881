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
	terms := queryTerms(q.Text)
	for i, rowid := range rowids {
		var body string
		if err := s.db.QueryRowContext(ctx, `SELECT body FROM fts WHERE rowid = ?`, rowid).Scan(&body); err != nil {
			return nil, fmt.Errorf("stash: search: %w", err)
		}
		out[i].Snippet = snippet(body, terms, 16)
	}
	return out, nil
}

// queryTerms are the words of a query, lower-cased and roughly stemmed,
// for marking them in snippets. A word of an unspaced script is a
// sequence of its characters, all of which must stand side by side.
func queryTerms(text string) [][]string {
	var out [][]string
	for _, w := range strings.Fields(strings.ToLower(text)) {
		tokens := strings.FieldsFunc(segment(w), notWord)
		if !strings.ContainsFunc(w, unspaced) {
			for _, t := range tokens {
				out = append(out, []string{stem(t)})
			}
			continue
		}
		if len(tokens) > 0 {
			out = append(out, tokens)
		}
	}
	return out
}

func notWord(r rune) bool { return !isWordRune(r) }

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

// piece is a word of an indexed body, as snippets cut it: joined is true
// when it follows the one before without a space (characters of an
// unspaced script, which the index separates with zero-width spaces).
type piece struct {
	text   string
	joined bool
}

func pieces(body string) []piece {
	var out []piece
	joined := false
	start := -1
	for i, r := range body {
		sep := unicode.IsSpace(r) || r == zwsp
		switch {
		case sep && start >= 0:
			out = append(out, piece{body[start:i], joined})
			start, joined = -1, r == zwsp
		case sep:
			joined = joined && r == zwsp
		case start < 0:
			start = i
		}
	}
	if start >= 0 {
		out = append(out, piece{body[start:], joined})
	}
	return out
}

// snippet is the window of about n words of body around the first place
// that matches the query, with what matched in bold. A character of an
// unspaced script counts as half a word.
func snippet(body string, terms [][]string, n int) string {
	ps := pieces(body)
	core := func(f string) string {
		return strings.TrimFunc(f, notWord)
	}
	marked := make([]bool, len(ps))
	for i := range ps {
		for _, term := range terms {
			if i+len(term) > len(ps) {
				continue
			}
			ok := true
			for j, w := range term {
				c := strings.ToLower(core(ps[i+j].text))
				if (j > 0 && !ps[i+j].joined) || !strings.HasPrefix(c, w) || (len(term) > 1 && j < len(term)-1 && c != w) {
					ok = false
					break
				}
			}
			if ok {
				for j := range term {
					marked[i+j] = true
				}
			}
		}
	}
	first := 0
	for i, m := range marked {
		if m {
			first = i
			break
		}
	}
	from := max(0, first-n/4)
	for from > 0 && ps[from].joined && first-from < n/2 {
		from-- // start a run of characters at its start, if near
	}
	to, budget := from, 2*n
	for to < len(ps) && budget > 0 {
		if ps[to].joined {
			budget--
		} else {
			budget -= 2
		}
		to++
	}
	var b strings.Builder
	if from > 0 {
		b.WriteString("…")
	}
	for i := from; i < to; i++ {
		p := ps[i]
		if i > from && !p.joined {
			b.WriteByte(' ')
		}
		if !marked[i] {
			b.WriteString(p.text)
			continue
		}
		// Bold the word, not the punctuation around it; a run of joined
		// characters is one bold run.
		c := core(p.text)
		at := strings.Index(p.text, c)
		b.WriteString(p.text[:at])
		if i == from || !marked[i-1] || !p.joined {
			b.WriteString("**")
		}
		b.WriteString(c)
		if i+1 >= to || !marked[i+1] || !ps[i+1].joined {
			b.WriteString("**")
		}
		b.WriteString(p.text[at+len(c):])
	}
	if to < len(ps) {
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
		words := strings.FieldsFunc(segment(term), notWord)
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
