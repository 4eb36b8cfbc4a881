package pgstore

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/rivermigrate"

	"github.com/heedhq/heed"
	"github.com/heedhq/heed/internal/history"
	"github.com/heedhq/heed/internal/mdtext"
)

// Store keeps snapshots as rows of a team's database, for every worker
// and reader at once: a crawl's store (Put, MarkRemoved, Touch,
// Links, Validators, HasValidators, Hash), the stash's reads (Get, List,
// Sources, Search, Remove), and each page's history (History,
// VersionText, Changes). Writes are by URL, under the page's row lock,
// so that a write repeated (a job run again after its worker died)
// changes nothing: the same content again is no new version. It is safe
// for concurrent use.
type Store struct {
	// Retention is how much of each page's history the store keeps; the
	// zero value keeps history's defaults.
	Retention history.Retention

	pool *pgxpool.Pool
	url  string
}

// Open connects to a database that Migrate made current.
func Open(ctx context.Context, dbURL string) (*Store, error) {
	pool, err := pgxpool.New(ctx, dbURL)
	if err != nil {
		return nil, Redact(dbURL, fmt.Errorf("pgstore: connect: %w", err))
	}
	var v int
	err = pool.QueryRow(ctx, "SELECT coalesce(max(version), 0) FROM heed_schema_version").Scan(&v)
	switch {
	case err != nil:
		pool.Close()
		return nil, Redact(dbURL, openError(err))
	case v < Version:
		pool.Close()
		return nil, fmt.Errorf("pgstore: heed's schema is at version %d, this heed's is %d; run heed migrate", v, Version)
	case v > Version:
		pool.Close()
		return nil, fmt.Errorf("pgstore: %w: it is at version %d, this heed knows %d; upgrade heed", ErrNewerSchema, v, Version)
	}
	if err := checkSchemas(ctx, pool); err != nil {
		pool.Close()
		return nil, err
	}
	// River's schema too: a migration cut short leaves heed's current
	// and River's behind.
	var res *rivermigrate.ValidateResult
	migrator, err := rivermigrate.New(riverpgxv5.New(pool), nil)
	if err == nil {
		res, err = migrator.Validate(ctx, nil)
	}
	if err != nil {
		pool.Close()
		return nil, Redact(dbURL, openError(err))
	}
	if !res.OK {
		pool.Close()
		return nil, fmt.Errorf("pgstore: the River schema is behind (%s); run heed migrate", strings.Join(res.Messages, "; "))
	}
	return &Store{pool: pool, url: dbURL}, nil
}

// openError says why a database could not be opened, and what to do: a
// database that could not be connected to (no server, a wrong password)
// says so, as the driver found it; one without heed's tables (or
// River's) is sent to heed migrate.
func openError(err error) error {
	var pgErr *pgconn.PgError
	var connErr *pgconn.ConnectError
	switch {
	case errors.As(err, &connErr):
		return fmt.Errorf("pgstore: cannot connect to the database: %w", err)
	case errors.As(err, &pgErr) && pgErr.Code == "42P01": // undefined_table
		return fmt.Errorf("pgstore: the database has no heed schema; run heed migrate (%w)", err)
	}
	return fmt.Errorf("pgstore: %w", err)
}

// SetRetention sets how much of each page's history Put keeps.
func (s *Store) SetRetention(r history.Retention) { s.Retention = r }

// Close closes the connections.
func (s *Store) Close() error { s.pool.Close(); return nil }

// Reindex has nothing to rebuild: each row's search vector is generated
// with it. It returns how many snapshots there are.
func (s *Store) Reindex(ctx context.Context) (int, error) {
	var n int
	err := s.pool.QueryRow(ctx, `SELECT count(*) FROM heed_snapshot`).Scan(&n)
	return n, s.fail(err)
}

// AppendLog adds an entry to the log of what was done.
func (s *Store) AppendLog(entry string) error {
	_, err := s.pool.Exec(context.Background(), `INSERT INTO heed_log (entry) VALUES ($1)`, entry)
	return s.fail(err)
}

// Optimize updates the planner's statistics after many writes.
func (s *Store) Optimize(ctx context.Context) error {
	_, err := s.pool.Exec(ctx, `ANALYZE heed_snapshot, heed_history, heed_content`)
	return s.fail(err)
}

// Writable is true: any number of processes write a team's database.
func (s *Store) Writable() bool { return true }

func (s *Store) fail(err error) error {
	if err == nil {
		return nil
	}
	return Redact(s.url, fmt.Errorf("pgstore: %w", err))
}

// Put stores a snapshot, its ID and hash set, and records its content
// as a version of its page (PutIn), in one transaction: a crash leaves
// the page as it was, or replaced with its old version kept. Unchanged
// content (the same hash and source) is not rewritten: its fetch time,
// validators and links are, and changed is false.
func (s *Store) Put(ctx context.Context, snap *heed.Snapshot) (bool, error) {
	var changed bool
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		var err error
		changed, err = PutIn(ctx, tx, snap, s.Retention)
		return err
	})
	return changed, s.fail(err)
}

// inTx runs f in a transaction, again when Postgres ended it for a
// deadlock or a serialization failure (a few times): two writes that
// lock the same rows in another order.
func (s *Store) inTx(ctx context.Context, f func(tx pgx.Tx) error) error {
	for try := 0; ; try++ {
		err := pgx.BeginFunc(ctx, s.pool, f)
		var pe *pgconn.PgError
		if err == nil || try == 4 || !errors.As(err, &pe) || (pe.Code != "40P01" && pe.Code != "40001") {
			return err
		}
	}
}

// Pool is the store's connections, for work that writes a snapshot in a
// transaction with more (a team's crawl: PutIn).
func (s *Store) Pool() *pgxpool.Pool { return s.pool }

// Clean makes s a text Postgres takes: valid UTF-8, without NUL.
func Clean(s string) string {
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "\uFFFD")
	}
	if strings.IndexByte(s, 0) >= 0 {
		s = strings.ReplaceAll(s, "\x00", "\uFFFD")
	}
	return s
}

// Touch records that the page at url was found unchanged at a time.
func (s *Store) Touch(ctx context.Context, url string, at time.Time) error {
	url = Clean(url)
	_, err := s.pool.Exec(ctx, `UPDATE heed_snapshot SET fetched_at = $2 WHERE url = $1`, url, at.UTC())
	return s.fail(err)
}

// Links are the links the source's page at url was stored with.
func (s *Store) Links(ctx context.Context, source, url string) []string {
	source, url = Clean(source), Clean(url)
	var links []string
	if err := s.pool.QueryRow(ctx, `SELECT links FROM heed_snapshot WHERE url = $1 AND source = $2`, url, source).Scan(&links); err != nil {
		return nil
	}
	return links
}

// Validators are what the source's page at url was stored with.
func (s *Store) Validators(ctx context.Context, source, url string) (etag, lastModified string, ok bool) {
	source, url = Clean(source), Clean(url)
	// A page found gone is fetched whole when it is back: a "not
	// modified" would leave it removed.
	err := s.pool.QueryRow(ctx, `SELECT etag, last_modified FROM heed_snapshot WHERE url = $1 AND source = $2 AND removed IS NULL`, url, source).Scan(&etag, &lastModified)
	return etag, lastModified, err == nil && (etag != "" || lastModified != "")
}

// HasValidators reports whether any page of the source has validators.
func (s *Store) HasValidators(ctx context.Context, source string) bool {
	var ok bool
	err := s.pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM heed_snapshot WHERE source = $1 AND (etag <> '' OR last_modified <> ''))`, source).Scan(&ok)
	return err == nil && ok
}

// Hash is the content hash of the source's page at url, or "".
func (s *Store) Hash(ctx context.Context, source, url string) string {
	source, url = Clean(source), Clean(url)
	var h string
	if err := s.pool.QueryRow(ctx, `SELECT hash FROM heed_snapshot WHERE url = $1 AND source = $2`, url, source).Scan(&h); err != nil {
		return ""
	}
	return h
}

// Get returns the snapshot of a URL or an ID, with the number of its
// content's version and, of a page found gone, when it was.
func (s *Store) Get(ctx context.Context, urlOrID string) (*heed.Snapshot, error) {
	urlOrID = Clean(urlOrID)
	var snap heed.Snapshot
	var published, modified, removed *time.Time
	err := s.pool.QueryRow(ctx, `
		SELECT url, id, source, title, description, fetched_at, tags, hash, etag, last_modified, notes, via, links, markdown, rendered,
			author, published, modified, removed, version
		FROM heed_snapshot WHERE url = $1 OR id = $1 ORDER BY url = $1 DESC LIMIT 1`, urlOrID).Scan(
		&snap.URL, &snap.ID, &snap.Source, &snap.Title, &snap.Description, &snap.FetchedAt, &snap.Tags, &snap.Hash,
		&snap.ETag, &snap.LastModified, &snap.Notes, &snap.Via, &snap.Links, &snap.Markdown, &snap.Rendered,
		&snap.Author, &published, &modified, &removed, &snap.Version)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, fmt.Errorf("%w: %s", heed.ErrNotFound, urlOrID)
	}
	if err != nil {
		return nil, s.fail(err)
	}
	snap.FetchedAt = snap.FetchedAt.UTC()
	if published != nil {
		snap.Published = published.UTC()
	}
	if modified != nil {
		snap.Modified = modified.UTC()
	}
	if removed != nil {
		snap.Removed = removed.UTC()
	}
	for _, a := range []*[]string{&snap.Tags, &snap.Notes, &snap.Via, &snap.Links} {
		if len(*a) == 0 {
			*a = nil
		}
	}
	return &snap, nil
}

// List lists a source's snapshots, or every snapshot for "", by URL.
func (s *Store) List(ctx context.Context, source string) ([]heed.Entry, error) {
	source = Clean(source)
	rows, err := s.pool.Query(ctx, `SELECT id, source, url, title, fetched_at FROM heed_snapshot WHERE $1 = '' OR source = $1 ORDER BY url`, source)
	return s.entries(rows, err)
}

// ListAfter lists at most limit snapshots, of every source, whose IDs
// sort after the ID after ("" for the first), by ID: a page of a listing
// that stays in step whatever is stored or removed before it meanwhile.
// IDs are lower-case hex digits, which every collation sorts alike, so
// the ID's own index serves the order.
func (s *Store) ListAfter(ctx context.Context, after string, limit int) ([]heed.Entry, error) {
	rows, err := s.pool.Query(ctx, `SELECT id, source, url, title, fetched_at FROM heed_snapshot WHERE id > $1 ORDER BY id LIMIT $2`, Clean(after), limit)
	return s.entries(rows, err)
}

// entries reads the entries a query of List or ListAfter selected.
func (s *Store) entries(rows pgx.Rows, err error) ([]heed.Entry, error) {
	if err != nil {
		return nil, s.fail(err)
	}
	defer rows.Close()
	var out []heed.Entry
	for rows.Next() {
		var e heed.Entry
		if err := rows.Scan(&e.ID, &e.Source, &e.URL, &e.Title, &e.FetchedAt); err != nil {
			return nil, s.fail(err)
		}
		e.FetchedAt = e.FetchedAt.UTC()
		out = append(out, e)
	}
	return out, s.fail(rows.Err())
}

// Sources counts the snapshots of each source.
func (s *Store) Sources(ctx context.Context) (map[string]int, error) {
	rows, err := s.pool.Query(ctx, `SELECT source, count(*) FROM heed_snapshot GROUP BY source`)
	if err != nil {
		return nil, s.fail(err)
	}
	defer rows.Close()
	out := map[string]int{}
	for rows.Next() {
		var src string
		var n int
		if err := rows.Scan(&src, &n); err != nil {
			return nil, s.fail(err)
		}
		out[src] = n
	}
	return out, s.fail(rows.Err())
}

// Remove removes a source's snapshots with their history, and the texts
// of their versions no other page's version has; it returns how many
// snapshots there were.
func (s *Store) Remove(ctx context.Context, source string) (int, error) {
	source = Clean(source)
	var n int
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		// The pages' rows first, as a Put locks its page's before the
		// texts; then the texts, as queueLockContents does; then, seeing
		// what the writes waited for committed, what no other source's
		// page has. The history goes with its page (ON DELETE CASCADE).
		b := &pgx.Batch{}
		b.Queue(`SELECT count(*) FROM (SELECT 1 FROM heed_snapshot WHERE source = $1 ORDER BY url FOR UPDATE) l`, source)
		b.Queue(`
			SELECT count(*) FROM (
				SELECT 1 FROM heed_content c
				WHERE c.hash IN (SELECT h.hash FROM heed_history h JOIN heed_snapshot s ON s.url = h.url WHERE s.source = $1)
				ORDER BY c.hash FOR UPDATE
			) l`, source)
		b.Queue(`
			DELETE FROM heed_content c
			WHERE c.hash IN (SELECT h.hash FROM heed_history h JOIN heed_snapshot s ON s.url = h.url WHERE s.source = $1)
				AND NOT EXISTS (SELECT 1 FROM heed_history h JOIN heed_snapshot s ON s.url = h.url WHERE h.hash = c.hash AND s.source <> $1)`, source)
		del := b.Queue(`DELETE FROM heed_snapshot WHERE source = $1`, source)
		del.Exec(func(tag pgconn.CommandTag) error {
			n = int(tag.RowsAffected())
			return nil
		})
		return tx.SendBatch(ctx, b).Close()
	})
	if err != nil {
		return 0, s.fail(err)
	}
	return n, nil
}

// Search finds the snapshots that hold every word of the query, in any
// form that stems alike (English), its "quoted phrases" as phrases and a
// word with a trailing * as a prefix, ranked by Postgres's ts_rank with
// the title weighing five times the text (as the stash of files weighs
// it, so that both put the same page first), with the snippet the stash
// makes (mdtext.Snippet): the words around the first match, in plain
// text, and where the matches are in it. A page found gone is left out
// unless q.Removed.
func (s *Store) Search(ctx context.Context, q heed.Query) ([]heed.Hit, error) {
	if len(q.Text) > heed.MaxQuery {
		return nil, heed.ErrQueryTooLong
	}
	tsq, args := tsQuery(Clean(q.Text))
	q.Source = Clean(q.Source)
	if tsq == "" {
		return nil, fmt.Errorf("%w in %q", heed.ErrEmptyQuery, q.Text)
	}
	limit := q.Limit
	if limit <= 0 {
		limit = 10
	}
	n := len(args)
	args = append(args, q.Source, limit, q.Removed)
	// Ranking reads each candidate's whole search vector: the candidates
	// are those whose title matches (titleCandidates at most) and the
	// first textCandidates others, so that a word most pages hold is
	// searched as fast as a rare one. The snippets are made for the hits
	// alone.
	rows, err := s.pool.Query(ctx, fmt.Sprintf(`
		WITH q AS (SELECT %[1]s AS query),
		cand AS (
			(SELECT url FROM heed_snapshot, q WHERE title_search @@ q.query AND ($%[3]d = '' OR source = $%[3]d) AND ($%[7]d OR removed IS NULL) LIMIT %[5]d)
			UNION
			(SELECT url FROM heed_snapshot, q WHERE search @@ q.query AND ($%[3]d = '' OR source = $%[3]d) AND ($%[7]d OR removed IS NULL) LIMIT %[6]d)
		),
		top AS (
			SELECT s.id, s.url, s.title, s.source, s.markdown, ts_rank('{0.05, 0.1, 0.2, 1.0}', s.search, q.query) AS score
			FROM heed_snapshot s JOIN cand USING (url), q
			ORDER BY score DESC, s.url
			LIMIT $%[4]d
		)
		SELECT id, url, title, source, score, left(markdown, %[2]d)
		FROM top
		ORDER BY score DESC, url`, tsq, snippetChars, n+1, n+2, titleCandidates, textCandidates, n+3), args...)
	if err != nil {
		return nil, s.fail(err)
	}
	defer rows.Close()
	var hits []heed.Hit
	terms := mdtext.Terms(q.Text)
	for rows.Next() {
		var h heed.Hit
		var score float32
		var markdown string
		if err := rows.Scan(&h.ID, &h.URL, &h.Title, &h.Source, &score, &markdown); err != nil {
			return nil, s.fail(err)
		}
		h.Score = float64(score)
		h.Snippet, h.Matches, h.Page = mdtext.SnippetPage(markdown, terms)
		hits = append(hits, h)
	}
	return hits, s.fail(rows.Err())
}

// How many pages a search ranks at most: those whose title matches, and
// others whose text does.
const (
	titleCandidates = 500
	textCandidates  = 1000
)

// snippetChars is how much of a page a snippet is cut from: the first
// 300,000 characters are searched (the search vector's bound), and the
// window around a match reaches a little past them.
const snippetChars = 310_000

// tsQuery builds a tsquery expression of the query's words (each a
// plainto_tsquery, stemmed), phrases (phraseto_tsquery) and prefixes
// (word:*), all of them required, with its arguments; "" when the query
// has no word.
func tsQuery(text string) (string, []any) {
	var parts []string
	var args []any
	add := func(expr string, arg string) {
		args = append(args, arg)
		parts = append(parts, fmt.Sprintf(expr, len(args)))
	}
	for len(text) > 0 {
		text = strings.TrimLeft(text, " \t\n")
		if text == "" {
			break
		}
		if text[0] == '"' {
			end := strings.IndexByte(text[1:], '"')
			phrase := text[1:]
			if end >= 0 {
				phrase = text[1 : 1+end]
				text = text[2+end:]
			} else {
				text = ""
			}
			if strings.TrimSpace(phrase) != "" {
				add("phraseto_tsquery('english', $%d)", phrase)
			}
			continue
		}
		word := text
		if i := strings.IndexAny(text, " \t\n\""); i >= 0 {
			word, text = text[:i], text[i:]
		} else {
			text = ""
		}
		if w, ok := strings.CutSuffix(word, "*"); ok {
			w = strings.Map(func(r rune) rune {
				if r == '\'' || r == '\\' || r == ':' || r == '&' || r == '|' || r == '!' || r == '(' || r == ')' || r == '<' || r == '>' || !utf8.ValidRune(r) {
					return -1
				}
				return r
			}, w)
			if w != "" {
				add("to_tsquery('english', quote_literal($%d) || ':*')", strings.ToLower(w))
			}
			continue
		}
		add("plainto_tsquery('english', $%d)", word)
	}
	if len(parts) == 0 {
		return "", nil
	}
	return "(" + strings.Join(parts, " && ") + ")", args
}

// nullTime is t for a column that may be NULL: NULL for the zero time.
func nullTime(t time.Time) *time.Time {
	if t.IsZero() {
		return nil
	}
	u := t.UTC()
	return &u
}
