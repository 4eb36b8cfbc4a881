package stash

import (
	"context"
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
// five times a body match, with a snippet of each around what matched.
func (s *Stash) Search(ctx context.Context, q Query) ([]Hit, error) {
	match := ftsQuery(q.Text)
	if match == "" {
		return nil, fmt.Errorf("stash: nothing to search for in %q", q.Text)
	}
	if q.Limit <= 0 {
		q.Limit = 10
	}
	rows, err := s.db.QueryContext(ctx, `
		SELECT d.id, d.url, d.title, d.source, d.path,
			snippet(fts, 1, '**', '**', '…', 16), bm25(fts, 5.0, 1.0) AS rank
		FROM fts JOIN docs d ON d.rowid = fts.rowid
		WHERE fts MATCH ? AND d.state = 'ok' AND (? = '' OR d.source = ?)
		ORDER BY rank LIMIT ?`, match, q.Source, q.Source, q.Limit)
	if err != nil {
		return nil, fmt.Errorf("stash: search: %w", err)
	}
	defer rows.Close()
	var out []Hit
	for rows.Next() {
		var h Hit
		var rank float64
		if err := rows.Scan(&h.ID, &h.URL, &h.Title, &h.Source, &h.Path, &h.Snippet, &rank); err != nil {
			return nil, fmt.Errorf("stash: search: %w", err)
		}
		h.Score = -rank // bm25 is lower for better matches
		h.Snippet = strings.Join(strings.Fields(h.Snippet), " ")
		out = append(out, h)
	}
	return out, rows.Err()
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
