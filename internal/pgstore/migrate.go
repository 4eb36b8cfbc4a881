package pgstore

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/rivermigrate"
)

// migrations are heed's schema, one step a version; a database at
// version N has had the first N applied. A step is only ever appended.
var migrations = []string{
	// 1: the stash as rows, searched by Postgres's full-text search; the
	// crawls, their frontier (the seen set is its primary key) and the
	// hosts' schedule, leases and robots.txt outcomes.
	`CREATE TABLE heed_snapshot (
		url           text PRIMARY KEY,
		id            text NOT NULL UNIQUE,
		source        text NOT NULL,
		title         text NOT NULL DEFAULT '',
		description   text NOT NULL DEFAULT '',
		fetched_at    timestamptz NOT NULL,
		tags          text[] NOT NULL DEFAULT '{}',
		hash          text NOT NULL,
		etag          text NOT NULL DEFAULT '',
		last_modified text NOT NULL DEFAULT '',
		notes         text[] NOT NULL DEFAULT '{}',
		via           text[] NOT NULL DEFAULT '{}',
		links         text[] NOT NULL DEFAULT '{}',
		markdown      text NOT NULL,
		search        tsvector GENERATED ALWAYS AS (
			setweight(to_tsvector('english', title), 'A') || setweight(to_tsvector('english', markdown), 'B')
		) STORED
	);
	CREATE INDEX heed_snapshot_search ON heed_snapshot USING gin (search);
	CREATE INDEX heed_snapshot_source ON heed_snapshot (source);
	CREATE TABLE heed_crawl (
		id         bigserial PRIMARY KEY,
		source     text NOT NULL,
		start_url  text NOT NULL,
		options    jsonb NOT NULL DEFAULT '{}',
		created_at timestamptz NOT NULL DEFAULT now(),
		done_at    timestamptz
	);
	CREATE TABLE heed_frontier (
		url    text PRIMARY KEY,
		crawl  bigint NOT NULL REFERENCES heed_crawl (id) ON DELETE CASCADE,
		host   text NOT NULL,
		depth  integer NOT NULL,
		state  text NOT NULL DEFAULT 'queued',
		due_at timestamptz NOT NULL DEFAULT now()
	);
	CREATE INDEX heed_frontier_due ON heed_frontier (host, state, due_at);
	CREATE TABLE heed_host (
		host         text PRIMARY KEY,
		next_at      timestamptz NOT NULL DEFAULT now(),
		lease_owner  text,
		lease_until  timestamptz,
		robots       jsonb,
		robots_until timestamptz
	);`,
	// 2: the log of what was done, as a stash's log.md keeps it.
	`CREATE TABLE heed_log (
		id    bigserial PRIMARY KEY,
		at    timestamptz NOT NULL DEFAULT now(),
		entry text NOT NULL
	);`,
	// 3: a search vector has a bound (1 MB): it is made of a page's first
	// 300,000 characters, so that a page of megabytes is stored all the
	// same, searchable by its head.
	`DROP INDEX heed_snapshot_search;
	ALTER TABLE heed_snapshot DROP COLUMN search;
	ALTER TABLE heed_snapshot ADD COLUMN search tsvector GENERATED ALWAYS AS (
		setweight(to_tsvector('english', left(title, 1000)), 'A') || setweight(to_tsvector('english', left(markdown, 300000)), 'B')
	) STORED;
	CREATE INDEX heed_snapshot_search ON heed_snapshot USING gin (search);`,
	// 4: the team's crawl. A crawl's bounds and how many requests it
	// made; the frontier's order (seq), why a URL ended as it did, and
	// how often it failed for a cause that may pass;
	// each host's last delay, kept after a worker that died, and whether
	// it has a job; robots.txt
	// per origin, as fetched, for every worker; twins found by hash.
	`ALTER TABLE heed_crawl
		ADD COLUMN max_pages   integer NOT NULL DEFAULT 500,
		ADD COLUMN fetched     integer NOT NULL DEFAULT 0,
		ADD COLUMN deadline_at timestamptz;
	ALTER TABLE heed_frontier
		ADD COLUMN seq        bigint GENERATED ALWAYS AS IDENTITY,
		ADD COLUMN reason     text NOT NULL DEFAULT '',
		ADD COLUMN detail     text NOT NULL DEFAULT '',
		ADD COLUMN attempts   integer NOT NULL DEFAULT 0,
		ADD COLUMN updated_at timestamptz NOT NULL DEFAULT now();
	DROP INDEX heed_frontier_due;
	CREATE INDEX heed_frontier_queue ON heed_frontier (host, seq) WHERE state = 'queued';
	CREATE INDEX heed_frontier_crawl ON heed_frontier (crawl, state);
	ALTER TABLE heed_host
		DROP COLUMN robots,
		DROP COLUMN robots_until,
		ADD COLUMN delay_ms bigint NOT NULL DEFAULT 0,
		ADD COLUMN awake    boolean NOT NULL DEFAULT false;
	CREATE TABLE heed_robots (
		origin      text PRIMARY KEY,
		status      text NOT NULL,
		http_status integer NOT NULL DEFAULT 0,
		cause       text NOT NULL DEFAULT '',
		body        bytea NOT NULL DEFAULT '',
		fetched_at  timestamptz NOT NULL DEFAULT now(),
		until       timestamptz NOT NULL
	);
	CREATE INDEX heed_snapshot_hash ON heed_snapshot (source, hash);
	ALTER TABLE heed_snapshot ADD COLUMN title_search tsvector GENERATED ALWAYS AS (
		to_tsvector('english', left(title, 1000))
	) STORED;
	CREATE INDEX heed_snapshot_title_search ON heed_snapshot USING gin (title_search);
	ALTER TABLE heed_snapshot ADD COLUMN rendered boolean NOT NULL DEFAULT false;`,
	// 5: a host's wanted_at, when a request beside its lease's holder
	// (a rendered page's, heed mcp --db's) last waited for it: the
	// holder lets it go before its next request. A crawl's seeded, false
	// until its sitemaps and llms.txt were read (a crawl is not done
	// before).
	`ALTER TABLE heed_host ADD COLUMN wanted_at timestamptz;
	ALTER TABLE heed_crawl ADD COLUMN seeded boolean NOT NULL DEFAULT true,
		ADD COLUMN seed_done text[] NOT NULL DEFAULT '{}';`,
	// 6: a crawl is a record: its state (running until it is seeded and
	// no URL of it waits, then done), when it ended, and what its URLs
	// came to (stored, unchanged, skipped and failed by reason), counted
	// in its row as each URL ends and frozen when it ends, so that a
	// later crawl that takes its URLs over leaves its counts as they
	// were. The crawls of a database before this version are counted
	// from the frontier as it stands, and those that ended are done.
	`ALTER TABLE heed_crawl
		ADD COLUMN state     text NOT NULL DEFAULT 'running' CHECK (state IN ('running', 'interrupted', 'done', 'failed')),
		ADD COLUMN ended_at  timestamptz,
		ADD COLUMN stored    integer NOT NULL DEFAULT 0,
		ADD COLUMN unchanged integer NOT NULL DEFAULT 0,
		ADD COLUMN skipped   jsonb NOT NULL DEFAULT '{}',
		ADD COLUMN failed    jsonb NOT NULL DEFAULT '{}';
	UPDATE heed_crawl c SET stored = n.stored, unchanged = n.unchanged, skipped = n.skipped, failed = n.failed
	FROM (
		SELECT crawl,
			coalesce(sum(n) FILTER (WHERE state = 'done' AND reason <> 'unchanged'), 0) AS stored,
			coalesce(sum(n) FILTER (WHERE state = 'done' AND reason = 'unchanged'), 0) AS unchanged,
			coalesce(jsonb_object_agg(reason, n) FILTER (WHERE state = 'skipped'), '{}') AS skipped,
			coalesce(jsonb_object_agg(reason, n) FILTER (WHERE state = 'failed'), '{}') AS failed
		FROM (SELECT crawl, state, reason, count(*) AS n FROM heed_frontier WHERE state <> 'queued' GROUP BY 1, 2, 3) g
		GROUP BY crawl
	) n WHERE c.id = n.crawl;
	UPDATE heed_crawl c SET state = 'done',
		ended_at = coalesce((SELECT max(f.updated_at) FROM heed_frontier f WHERE f.crawl = c.id), c.created_at)
	WHERE c.seeded AND NOT EXISTS (SELECT 1 FROM heed_frontier f WHERE f.crawl = c.id AND f.state = 'queued');`,
	// 7: how a queued URL was found, where not by a link (crawl.Item's
	// Via, newline-separated): a page llms.txt lists is read as the
	// Markdown llms.txt says it is, though served as plain text.
	`ALTER TABLE heed_frontier ADD COLUMN via text NOT NULL DEFAULT '';`,
	// 8: a crawl cancelled on purpose (team.Cancel): it ends as one past
	// its deadline does, its URLs left skipped as cancelled, and its
	// state says so.
	`ALTER TABLE heed_crawl ADD COLUMN cancelled boolean NOT NULL DEFAULT false;
	ALTER TABLE heed_crawl DROP CONSTRAINT IF EXISTS heed_crawl_state_check;
	ALTER TABLE heed_crawl ADD CONSTRAINT heed_crawl_state_check CHECK (state IN ('running', 'interrupted', 'done', 'failed', 'cancelled'));`,
	// 9: who wrote a page and when, as it says (a document's
	// information), kept with its snapshot as the stash's files keep it.
	`ALTER TABLE heed_snapshot
		ADD COLUMN author    text NOT NULL DEFAULT '',
		ADD COLUMN published timestamptz,
		ADD COLUMN modified  timestamptz;`,
	// 10: every version of a page kept. heed_history is each page's
	// versions and removals, numbered from 1 (its last entry is where it
	// stands); heed_content the Markdown of the versions a page no longer
	// has, each distinct text once, whatever number of versions or pages
	// have it: a page's current text stays in its snapshot's row, which
	// search reads, and is copied here only as it is replaced. A
	// snapshot's removed is when it was found gone, and version the
	// number of its content. The snapshots of a database before this
	// version start their history with one entry of their row, dated at
	// the epoch (the row's fetch time moves with every fetch that finds
	// it as it was: it is not when its content came); the columns added
	// with a default rewrite no row. A crawl counts the pages it stored
	// new and changed, those it found gone, and the sitemaps it could
	// not read (it cannot say a page only they list is gone).
	`CREATE TABLE heed_content (
		hash     text PRIMARY KEY,
		markdown text NOT NULL
	);
	CREATE TABLE heed_history (
		url           text NOT NULL REFERENCES heed_snapshot (url) ON DELETE CASCADE,
		n             integer NOT NULL CHECK (n > 0),
		at            timestamptz NOT NULL,
		hash          text NOT NULL DEFAULT '',
		size          integer NOT NULL DEFAULT 0,
		etag          text NOT NULL DEFAULT '',
		last_modified text NOT NULL DEFAULT '',
		removed       text NOT NULL DEFAULT '',
		PRIMARY KEY (url, n)
	);
	CREATE INDEX heed_history_hash ON heed_history (hash);
	CREATE INDEX heed_history_at ON heed_history (at);
	ALTER TABLE heed_snapshot
		ADD COLUMN removed timestamptz,
		ADD COLUMN version integer NOT NULL DEFAULT 1;
	ALTER TABLE heed_snapshot ALTER COLUMN version SET DEFAULT 0;
	INSERT INTO heed_history (url, n, at, hash, size, etag, last_modified)
		SELECT url, 1, '1970-01-01T00:00:00Z', hash, octet_length(markdown), etag, last_modified FROM heed_snapshot;
	ALTER TABLE heed_crawl
		ADD COLUMN new     integer NOT NULL DEFAULT 0,
		ADD COLUMN changed integer NOT NULL DEFAULT 0,
		ADD COLUMN removed integer NOT NULL DEFAULT 0,
		ADD COLUMN sitemaps_unread integer NOT NULL DEFAULT 0;`,
	// 11: a crawl's options, and the seed files (llms.txt, sitemaps) it
	// read to their end, are kept beside its row, which each of its
	// requests and each URL's end update: a row as wide as its options
	// (a kilobyte or more with allowed hosts or globs) left its page room
	// for too few of its versions, and an update that found none there
	// grew the row's table and index, slowing every update after it.
	`CREATE TABLE heed_crawl_options (
		crawl   bigint PRIMARY KEY REFERENCES heed_crawl (id) ON DELETE CASCADE,
		options jsonb NOT NULL
	);
	INSERT INTO heed_crawl_options (crawl, options) SELECT id, options FROM heed_crawl;
	CREATE TABLE heed_seed_file (
		crawl bigint NOT NULL REFERENCES heed_crawl (id) ON DELETE CASCADE,
		url   text NOT NULL,
		PRIMARY KEY (crawl, url)
	);
	INSERT INTO heed_seed_file (crawl, url) SELECT DISTINCT c.id, f FROM heed_crawl c, unnest(c.seed_done) AS f;
	ALTER TABLE heed_crawl DROP COLUMN options, DROP COLUMN seed_done;`,
	// 12: what a crawl's ledger (pgstore.Ledger) holds that the team's
	// tables did not: beside a crawl's row, its key (a crawl of the same
	// key that did not end is taken up again), who took it up last and
	// how many times; in a frontier's row, what a sitemap said of a URL
	// queued, and the content hash a page was kept with (a team's worker
	// leaves it empty: its snapshot's row has it). The key is indexed by
	// hash, as it may be longer than a btree's entry may be.
	`ALTER TABLE heed_crawl_options
		ADD COLUMN key        text NOT NULL DEFAULT '',
		ADD COLUMN started_by text NOT NULL DEFAULT '',
		ADD COLUMN resumed    integer NOT NULL DEFAULT 0;
	CREATE INDEX heed_crawl_options_key ON heed_crawl_options USING hash (key);
	ALTER TABLE heed_frontier
		ADD COLUMN lastmod text NOT NULL DEFAULT '',
		ADD COLUMN hash    text NOT NULL DEFAULT '';`,
}

// Version is the heed schema version this build knows.
var Version = len(migrations)

// lockKey is the advisory lock that one migration at a time holds.
const lockKey = 0x68656564 // "heed"

// ErrNewerSchema is wrapped by Migrate's error for a database migrated by
// a newer heed.
var ErrNewerSchema = errors.New("the database's heed schema is newer than this heed knows")

// ErrLocked is wrapped by Migrate's error when another session held a
// lock the migration waited for (the migration lock, or a lock on a table
// a step alters) for longer than it waits.
var ErrLocked = errors.New("another session holds a lock the migration waits for")

// Result says what Migrate did.
type Result struct {
	From, To     int   // heed's schema versions before and after
	RiverApplied []int // River's migration versions applied
}

// Migrate creates or upgrades heed's schema and River's in the database
// at dbURL, under an advisory lock, so that two migrations at once are
// one after the other: heed's in one transaction, then River's, each of
// its versions in a transaction of its own (River's enum changes cannot
// share one). Running it again changes nothing. A database whose heed
// schema is newer than Version is refused with ErrNewerSchema, unchanged.
func Migrate(ctx context.Context, dbURL string) (*Result, error) {
	return MigrateWait(ctx, dbURL, LockWait)
}

// LockWait is how long Migrate waits for another session's migration to
// end, and then for each lock on a table its steps alter: a session that
// holds one longer (any role may take an advisory lock; any transaction
// left open on a table holds its lock) is named in the error, not waited
// for forever. A step that waited for its table without a bound would
// make every worker's update of the table wait behind it.
const LockWait = time.Minute

// MigrateWait is Migrate waiting at most wait (LockWait for 0) for the
// migration lock, and as long at most for each lock its steps take; then
// it fails with ErrLocked, naming the sessions that hold the lock, and
// leaves heed's schema as it was.
func MigrateWait(ctx context.Context, dbURL string, wait time.Duration) (*Result, error) {
	if wait <= 0 {
		wait = LockWait
	}
	res, err := migrateAll(ctx, dbURL, wait)
	return res, Redact(dbURL, err)
}

func migrateAll(ctx context.Context, dbURL string, wait time.Duration) (*Result, error) {
	conn, err := connectMigration(ctx, dbURL)
	if err != nil {
		return nil, err
	}
	defer conn.Close(context.WithoutCancel(ctx))
	if err := lock(ctx, conn, wait); err != nil {
		return nil, err
	}
	defer conn.Exec(context.WithoutCancel(ctx), "SELECT pg_advisory_unlock($1)", int64(lockKey))
	owner, err := asOwner(ctx, conn)
	if err != nil {
		return nil, err
	}
	if err := checkSchemas(ctx, conn); err != nil {
		return nil, err
	}
	res, err := migrate(ctx, conn, wait)
	if err != nil {
		return nil, err
	}
	cfg, err := pgxpool.ParseConfig(dbURL)
	if err != nil {
		return nil, fmt.Errorf("pgstore: connect: %w", err)
	}
	// River's steps wait for their tables as long at most as heed's.
	cfg.ConnConfig.RuntimeParams["lock_timeout"] = lockTimeout(wait)
	if owner != "" {
		cfg.AfterConnect = func(ctx context.Context, c *pgx.Conn) error {
			_, err := c.Exec(ctx, "SET ROLE "+pgx.Identifier{owner}.Sanitize())
			return err
		}
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("pgstore: connect: %w", err)
	}
	defer pool.Close()
	migrator, err := rivermigrate.New(riverpgxv5.New(pool), nil)
	if err != nil {
		return nil, fmt.Errorf("pgstore: migrate: river: %w", err)
	}
	rr, err := migrator.Migrate(ctx, rivermigrate.DirectionUp, nil)
	if timedOut(err) {
		return nil, fmt.Errorf("pgstore: migrate: river: %w, on River's tables, longer than %v: %s; stop the team's workers, end any other transaction on these tables, then migrate again",
			ErrLocked, wait, holders(ctx, conn, `river\_%`))
	}
	if err != nil {
		return nil, fmt.Errorf("pgstore: migrate: river: %w", err)
	}
	for _, v := range rr.Versions {
		res.RiverApplied = append(res.RiverApplied, v.Version)
	}
	return res, nil
}

// asOwner sets the session's role to the database's owner when the
// role that connected is a member of it, not it (GRANT heed TO alice):
// the tables a migration makes are the owner's, whom every member of the
// team reaches, not the member's who ran it, whom no other reaches. It
// returns the owner's name when it set it; a role that may not take it
// migrates as itself.
func asOwner(ctx context.Context, conn *pgx.Conn) (string, error) {
	var owner string
	var member bool
	err := conn.QueryRow(ctx, `
		SELECT pg_get_userbyid(datdba), pg_get_userbyid(datdba) <> current_user AND pg_has_role(current_user, datdba, 'MEMBER')
		FROM pg_database WHERE datname = current_database()`).Scan(&owner, &member)
	if err != nil {
		return "", fmt.Errorf("pgstore: migrate: the database's owner: %w", err)
	}
	if !member {
		return "", nil
	}
	if _, err := conn.Exec(ctx, "SET ROLE "+pgx.Identifier{owner}.Sanitize()); err != nil {
		return "", nil
	}
	return owner, nil
}

// checkSchemas fails for a schema on the session's search path in which
// every role may create objects (PUBLIC's CREATE: PostgreSQL 14's public
// schema, or a GRANT): a stranger's function there, whose arguments
// match a call closer than the system's (unnest(text[]) over
// unnest(anyarray)), would run as the role of heed's queries and
// River's.
func checkSchemas(ctx context.Context, db interface {
	Query(context.Context, string, ...any) (pgx.Rows, error)
}) error {
	rows, err := db.Query(ctx, `
		SELECT DISTINCT n.nspname FROM unnest(current_schemas(false)) AS s(name)
		JOIN pg_namespace n ON n.nspname = s.name,
		aclexplode(coalesce(n.nspacl, acldefault('n', n.nspowner))) AS a
		WHERE a.grantee = 0 AND a.privilege_type = 'CREATE'
		ORDER BY 1`)
	if err != nil {
		return fmt.Errorf("pgstore: the schemas' privileges: %w", err)
	}
	open, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return fmt.Errorf("pgstore: the schemas' privileges: %w", err)
	}
	if len(open) == 0 {
		return nil
	}
	var revoke []string
	for _, n := range open {
		if strings.Trim(n, "abcdefghijklmnopqrstuvwxyz0123456789_") != "" || n == "" || n[0] >= '0' && n[0] <= '9' {
			n = pgx.Identifier{n}.Sanitize()
		}
		revoke = append(revoke, "REVOKE CREATE ON SCHEMA "+n+" FROM PUBLIC")
	}
	return fmt.Errorf("pgstore: every role may create objects in schema %s, which heed's queries would call as heed's role; refused: as the database's owner, %s", strings.Join(open, ", "), strings.Join(revoke, "; "))
}

// connectMigration connects for a migration, its session named "heed
// migrate" (unless the URL names it), so that another migration waiting
// for its lock knows it for heed's.
func connectMigration(ctx context.Context, dbURL string) (*pgx.Conn, error) {
	cfg, err := pgx.ParseConfig(dbURL)
	if err != nil {
		return nil, fmt.Errorf("pgstore: connect: %w", err)
	}
	if cfg.RuntimeParams["application_name"] == "" {
		cfg.RuntimeParams["application_name"] = "heed migrate"
	}
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("pgstore: connect: %w", err)
	}
	return conn, nil
}

// lockTimeout is the server's lock_timeout of a wait, in milliseconds:
// at least one (0 would wait forever), at most the server's bound (24.8
// days).
func lockTimeout(wait time.Duration) string {
	return strconv.FormatInt(min(max(wait.Milliseconds(), 1), math.MaxInt32), 10)
}

// timedOut says whether err is the server's, of a statement that waited
// for a lock longer than lock_timeout.
func timedOut(err error) bool {
	var pgErr *pgconn.PgError
	return errors.As(err, &pgErr) && pgErr.Code == "55P03" // lock_not_available
}

// lock takes the migration lock on conn, waiting at most wait (the
// server's lock_timeout) for another session to let it go; after that it
// fails with ErrLocked and who holds it. The bound stays set for the
// session: each lock the migration's steps take on a table is waited for
// as long at most.
func lock(ctx context.Context, conn *pgx.Conn, wait time.Duration) error {
	if _, err := conn.Exec(ctx, "SELECT set_config('lock_timeout', $1, false)", lockTimeout(wait)); err != nil {
		return fmt.Errorf("pgstore: migrate: lock: %w", err)
	}
	_, err := conn.Exec(ctx, "SELECT pg_advisory_lock($1)", int64(lockKey))
	if timedOut(err) {
		return fmt.Errorf("pgstore: migrate: %w, heed's migration lock, longer than %v: %s; when it is no migration of heed's, end it (SELECT pg_terminate_backend(pid)) and revoke its role's CONNECT", ErrLocked, wait, holder(ctx, conn))
	}
	if err != nil {
		return fmt.Errorf("pgstore: migrate: lock: %w", err)
	}
	return nil
}

// holder describes the sessions that hold the migration lock.
func holder(ctx context.Context, conn *pgx.Conn) string {
	out := sessions(ctx, conn, `
		SELECT a.pid, coalesce(a.usename, ''), coalesce(a.application_name, ''),
			coalesce(host(a.client_addr), ''), coalesce(a.state, ''), a.backend_start, ''
		FROM pg_locks l LEFT JOIN pg_stat_activity a ON a.pid = l.pid
		WHERE l.locktype = 'advisory' AND l.granted AND l.classid = $1 AND l.objid = $2 AND l.objsubid = 1
		ORDER BY a.pid`, int64(lockKey>>32), int64(lockKey&0xffffffff))
	if out == "" {
		return "its holder has let it go since"
	}
	return out
}

// holders describes the sessions, besides conn's, that hold a lock on a
// table of the database whose name is LIKE pattern, the oldest
// transaction first, and which tables: a step that gave up waiting no
// longer says whose lock it waited for, and one of them held it. A
// worker's session at work is among them as long as its transaction
// lasts; one idle in a transaction is the likeliest to have kept the
// step waiting.
func holders(ctx context.Context, conn *pgx.Conn, pattern string) string {
	const most = 10
	out := sessions(ctx, conn, `
		SELECT a.pid, coalesce(a.usename, ''), coalesce(a.application_name, ''),
			coalesce(host(a.client_addr), ''), coalesce(a.state, ''), a.backend_start,
			string_agg(DISTINCT c.relname, ', ' ORDER BY c.relname)
		FROM pg_locks l JOIN pg_class c ON c.oid = l.relation LEFT JOIN pg_stat_activity a ON a.pid = l.pid
		WHERE l.locktype = 'relation' AND l.granted AND c.relkind IN ('r', 'p') AND c.relname LIKE $1
			AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())
			AND l.pid IS DISTINCT FROM pg_backend_pid()
		GROUP BY a.pid, a.usename, a.application_name, a.client_addr, a.state, a.backend_start
		ORDER BY min(a.xact_start), a.pid LIMIT $2`, pattern, most+1)
	if out == "" {
		return "their holders have let them go since"
	}
	if strings.Count(out, "; held by ") >= most {
		out = out[:strings.LastIndex(out, "; held by ")] + "; and more"
	}
	return out
}

// sessions describes the sessions a query reads of pg_locks and
// pg_stat_activity, one a row of process id, role, application, client
// address, state, since when it is connected and the tables it locks:
// as much as pg_stat_activity shows this role of them. It is "" for none.
func sessions(ctx context.Context, conn *pgx.Conn, query string, args ...any) string {
	rows, err := conn.Query(ctx, query, args...)
	if err != nil {
		return "(who holds it could not be read: " + err.Error() + ")"
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var pid *int
		var user, app, addr, state, tables string
		var since *time.Time
		if err := rows.Scan(&pid, &user, &app, &addr, &state, &since, &tables); err != nil {
			return "(who holds it could not be read: " + err.Error() + ")"
		}
		if pid == nil {
			out = append(out, "held by a prepared transaction (pg_prepared_xacts)")
			continue
		}
		d := fmt.Sprintf("pid %d, role %q, application %q", *pid, user, app)
		switch {
		case since == nil:
			// Another role's session: its address and times are shown
			// to a superuser or a member of pg_read_all_stats.
			d += " (more to a role with pg_read_all_stats)"
		case addr == "":
			d += ", from a local socket"
		default:
			d += ", from " + addr
		}
		if since != nil {
			d += ", connected since " + since.UTC().Format(time.RFC3339)
		}
		if state != "" {
			d += ", " + state
		}
		if tables != "" {
			d += ", on " + tables
		}
		out = append(out, "held by "+d)
	}
	if err := rows.Err(); err != nil {
		return "(who holds it could not be read: " + err.Error() + ")"
	}
	return strings.Join(out, "; ")
}

// migrate applies heed's missing versions in one transaction. A step
// that waited longer than wait for a lock on its table is undone with
// the others, and fails with ErrLocked and who held locks on heed's
// tables.
func migrate(ctx context.Context, conn *pgx.Conn, wait time.Duration) (*Result, error) {
	tx, err := conn.Begin(ctx)
	if err != nil {
		return nil, fmt.Errorf("pgstore: migrate: %w", err)
	}
	defer tx.Rollback(context.WithoutCancel(ctx))
	if _, err := tx.Exec(ctx, `CREATE TABLE IF NOT EXISTS heed_schema_version (
		version    integer PRIMARY KEY,
		applied_at timestamptz NOT NULL DEFAULT now()
	)`); err != nil {
		return nil, fmt.Errorf("pgstore: migrate: %w", err)
	}
	res := &Result{}
	if err := tx.QueryRow(ctx, "SELECT coalesce(max(version), 0) FROM heed_schema_version").Scan(&res.From); err != nil {
		return nil, fmt.Errorf("pgstore: migrate: %w", err)
	}
	if res.From > Version {
		return nil, fmt.Errorf("%w: it is at version %d, this heed knows %d; upgrade heed", ErrNewerSchema, res.From, Version)
	}
	for v := res.From + 1; v <= Version; v++ {
		_, err := tx.Exec(ctx, migrations[v-1])
		if timedOut(err) {
			// The transaction ends before the sessions are read: conn
			// reads nothing in a transaction that failed.
			if err := tx.Rollback(ctx); err != nil {
				return nil, fmt.Errorf("pgstore: migrate to version %d: %w", v, err)
			}
			return nil, fmt.Errorf("pgstore: migrate to version %d: %w, on heed's tables, longer than %v: %s; nothing was changed: stop the team's workers, end any other transaction on these tables, then migrate again",
				v, ErrLocked, wait, holders(ctx, conn, `heed\_%`))
		}
		if err != nil {
			return nil, fmt.Errorf("pgstore: migrate to version %d: %w", v, err)
		}
		if _, err := tx.Exec(ctx, "INSERT INTO heed_schema_version (version) VALUES ($1)", v); err != nil {
			return nil, fmt.Errorf("pgstore: migrate: %w", err)
		}
	}
	res.To = Version
	if err := tx.Commit(ctx); err != nil {
		return nil, fmt.Errorf("pgstore: migrate: commit: %w", err)
	}
	return res, nil
}

// Redact returns err with the password of dbURL, as written and as
// decoded, replaced by "xxxxx" wherever its message holds it; nil stays
// nil.
func Redact(dbURL string, err error) error {
	if err == nil {
		return nil
	}
	msg := err.Error()
	if red := RedactString(dbURL, msg); red != msg {
		return redacted{err: err, msg: red}
	}
	return err
}

// RedactString is s with dbURL's password replaced by "xxxxx": whole,
// escaped, and each part of it between punctuation of three characters
// or more (a driver that masks up to an "@" it took for the end of the
// password shows the rest).
func RedactString(dbURL, s string) string {
	for _, pw := range passwords(dbURL) {
		forms := []string{pw, url.QueryEscape(pw), url.PathEscape(pw)}
		for _, part := range strings.FieldsFunc(pw, func(r rune) bool {
			return !unicode.IsLetter(r) && !unicode.IsDigit(r)
		}) {
			if len(part) >= 3 {
				forms = append(forms, part)
			}
		}
		for _, f := range forms {
			if f != "" {
				s = strings.ReplaceAll(s, f, "xxxxx")
			}
		}
	}
	return s
}

// passwords are the passwords dbURL holds: its own (password), and a
// URL's password parameter (?password=...), which libpq takes too.
func passwords(dbURL string) []string {
	var out []string
	if pw := password(dbURL); pw != "" {
		out = append(out, pw)
	}
	if i := strings.Index(dbURL, "://"); i >= 0 {
		if _, query, ok := strings.Cut(dbURL[i+3:], "?"); ok {
			query, _, _ = strings.Cut(query, "#")
			for _, kv := range strings.Split(query, "&") {
				k, v, _ := strings.Cut(kv, "=")
				if !strings.EqualFold(k, "password") || v == "" {
					continue
				}
				out = append(out, v)
				if dec, err := url.QueryUnescape(v); err == nil && dec != v {
					out = append(out, dec)
				}
			}
		}
	}
	return out
}

// kvPassword finds a keyword/value string's password: password=x,
// password = x, password='a b' (with \' and \\ escapes).
var kvPassword = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`password\s*=\s*('((?:\\.|[^'\\])*)'|(\S+))`) })

func password(dbURL string) string {
	if i := strings.Index(dbURL, "://"); i >= 0 {
		// A URL: its userinfo runs to the last "@" before the host, so
		// that an "@" left unencoded in the password is the password's.
		rest := dbURL[i+3:]
		if j := strings.IndexAny(rest, "/?#"); j >= 0 {
			rest = rest[:j]
		}
		if at := strings.LastIndexByte(rest, '@'); at >= 0 {
			if _, pw, ok := strings.Cut(rest[:at], ":"); ok {
				if dec, err := url.PathUnescape(pw); err == nil && dec != pw {
					return dec
				}
				return pw
			}
		}
		return ""
	}
	if m := kvPassword().FindStringSubmatch(dbURL); m != nil {
		if m[3] != "" {
			return m[3]
		}
		return strings.NewReplacer(`\'`, "'", `\\`, `\`).Replace(m[2])
	}
	return ""
}

type redacted struct {
	err error
	msg string
}

func (r redacted) Error() string { return r.msg }
func (r redacted) Unwrap() error { return r.err }
