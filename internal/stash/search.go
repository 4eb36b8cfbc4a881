package stash

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"unicode"

	"github.com/heedhq/heed"
	"github.com/heedhq/heed/internal/frontmatter"
	"github.com/heedhq/heed/internal/mdtext"
)

// Search ranks the snapshots that match q by BM25, a title match weighing
// five times a body match (the index's rank function), with a snippet of
// each around what matched.
func (s *Stash) Search(ctx context.Context, q heed.Query) ([]heed.Hit, error) {
	if len(q.Text) > heed.MaxQuery {
		return nil, heed.ErrQueryTooLong
	}
	match := ftsQuery(q.Text)
	if match == "" {
		return nil, fmt.Errorf("%w in %q", heed.ErrEmptyQuery, q.Text)
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
			SELECT d.id, d.url, d.title, d.source, d.path, top.rank
			FROM (SELECT rowid, rank FROM fts WHERE fts MATCH ? ORDER BY rank LIMIT ?) AS top
			JOIN docs d ON d.rowid = top.rowid
			WHERE d.state = 'ok' `+s.present(q)+` ORDER BY top.rank`, match, q.Limit)
	} else {
		rows, err = s.db.QueryContext(ctx, `
			SELECT d.id, d.url, d.title, d.source, d.path, fts.rank
			FROM fts JOIN docs d ON d.rowid = fts.rowid
			WHERE fts MATCH ? AND d.state = 'ok' AND d.source = ? `+s.present(q)+`
			ORDER BY fts.rank LIMIT ?`, match, q.Source, q.Limit)
	}
	if err != nil {
		return nil, fmt.Errorf("stash: search: %w", err)
	}
	var out []heed.Hit
	for rows.Next() {
		var h heed.Hit
		var rank float64
		if err := rows.Scan(&h.ID, &h.URL, &h.Title, &h.Source, &h.Path, &rank); err != nil {
			rows.Close()
			return nil, fmt.Errorf("stash: search: %w", err)
		}
		h.Score = -rank // bm25 is lower for better matches
		out = append(out, h)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("stash: search: %w", err)
	}
	terms := mdtext.Terms(q.Text)
	for i := range out {
		out[i].Snippet, out[i].Matches, out[i].Page = mdtext.SnippetPage(s.bodyOf(out[i].Path, out[i].URL), terms)
	}
	return out, nil
}

// present is the condition that leaves removed pages out of a search,
// unless it asks for them.
func (s *Stash) present(q heed.Query) string {
	if q.Removed || !s.histories {
		return ""
	}
	return "AND d.removed = ''"
}

// maxSnippetRead is how much of a snapshot's file search reads for its
// snippet: the match is nearly always early, and a file grown huge (by
// hand) costs no more.
const maxSnippetRead = 4 << 20

// bodyOf is the Markdown of url's snapshot at path, or "" if its file
// cannot be read, or holds another URL's (in a stash an older heed wrote,
// http and https of a page shared one, and so did /Readme and /README
// where case is ignored): the index keeps no copy of the text. A path that leads out of the
// stash (an index written by hand) is not followed.
func (s *Stash) bodyOf(path, url string) string {
	if !filepath.IsLocal(filepath.FromSlash(path)) {
		return ""
	}
	f, err := openRegular(s.root, filepath.FromSlash(path))
	if err != nil {
		return ""
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxSnippetRead))
	if err != nil {
		return ""
	}
	// The frontmatter must name url as heed writes it; it is not
	// decoded, which would cost more than the rest of a search.
	front, body, err := frontmatter.Cut(data)
	if err != nil {
		return ""
	}
	line := "url: " + frontmatter.Quote(url)
	for l := range strings.Lines(string(front)) {
		if strings.TrimSuffix(l, "\n") == line {
			return body
		}
	}
	return ""
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
		words := strings.FieldsFunc(mdtext.Segment(term), func(r rune) bool { return mdtext.NotWord(r) && r != mdtext.Barrier })
		// A long phrase is matched as phrases of at most maxPhrase words
		// each: matching a phrase costs its length times the occurrences
		// of its words.
		for len(words) > 0 {
			n := min(len(words), maxPhrase)
			q := `"` + strings.Join(words[:n], " ") + `"`
			words = words[n:]
			if prefix && len(words) == 0 {
				q += "*"
			}
			terms = append(terms, q)
		}
	}
	return strings.Join(terms, " ")
}

// indexed is what the full-text index holds of a snapshot's title and
// Markdown.
func indexed(title, markdown string) (string, string) {
	return mdtext.Segment(title), mdtext.Body(markdown)
}

// maxPhrase is the most words ftsQuery puts in one phrase.
const maxPhrase = 32
