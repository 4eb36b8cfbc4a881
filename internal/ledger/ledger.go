package ledger

import (
	"context"
	"errors"
	"maps"
	"time"
)

// State is where a crawl stands.
type State string

// The states of a crawl. A crawl is Running while a process crawls it;
// Interrupted when it stopped before its end (Ctrl-C, a signal, its
// deadline, or a process that died), and may be resumed; Done when it ran
// to its end; CrawlFailed when it stopped because its pages could not be
// stored, or its start URL could not be crawled (robots.txt refused it,
// or could not be read), and may be resumed once they can.
const (
	Running     State = "running"
	Interrupted State = "interrupted"
	Done        State = "done"
	CrawlFailed State = "failed"
	// Cancelled is a crawl stopped on purpose by whoever started it (an
	// agent's cancel): it is not taken up again.
	Cancelled State = "cancelled"
)

// ErrCancelled is the cause a crawl's context is cancelled with when the
// crawl is cancelled on purpose: it ends Cancelled, not Interrupted.
var ErrCancelled = errors.New("the crawl was cancelled")

// Resumable reports whether a crawl in this state is taken up again.
func (s State) Resumable() bool { return s == Interrupted || s == CrawlFailed }

// Crawl is the record of one crawl.
type Crawl struct {
	ID     int64  `json:"id"`
	Start  string `json:"start"`
	Source string `json:"source"`
	// Key is what makes two crawls one: the start URL, the source and
	// the settings that decide what each URL comes to (the scope, the
	// robots policy), as JSON. Running the same command again resumes
	// the last crawl of its key that did not end.
	Key string `json:"-"`
	// Options are the crawl's options as it last ran, as JSON
	// (crawlopt.Options): a crawl taken up by its ID alone runs with them.
	// A crawl taken up with none given keeps those it had.
	Options string    `json:"-"`
	State   State     `json:"state"`
	Began   time.Time `json:"began"`
	Ended   time.Time `json:"ended,omitzero"`
	Counts  Counts    `json:"counts"`
	Resumed int       `json:"resumed,omitempty"` // how many times it was taken up again
	// By is who started the crawl, or took it up last: ByAgent for an
	// agent's (heed mcp takes those left running up again when it
	// starts), "" for a person's at the command line.
	By string `json:"by,omitempty"`
}

// ByAgent is Crawl.By of a crawl an agent started.
const ByAgent = "agent"

// Kept is a page a crawl kept: stored, or found unchanged. Seq is its
// place in the order the crawl kept its pages, a cursor for the next.
type Kept struct {
	URL  string `json:"url"`
	Fate Fate   `json:"fate"`
	Seq  int64  `json:"-"`
}

// Counts are what a crawl's URLs came to, over all its runs.
type Counts struct {
	// Requests are those counted against the crawl's max_pages.
	Requests int `json:"requests"`
	// Stored are the pages stored, New and Changed of them.
	Stored    int `json:"stored"`
	New       int `json:"new,omitempty"`
	Changed   int `json:"changed,omitempty"`
	Unchanged int `json:"unchanged"`
	Removed   int `json:"removed,omitempty"` // pages found gone
	Failed    int `json:"failed"`
	// Failures are the Failed by reason, where the reasons are known (a
	// team's workers count them so): they add up to Failed at most, the
	// rest of no reason known.
	Failures map[string]int `json:"failures,omitempty"`
	Skipped  map[string]int `json:"skipped,omitempty"` // by reason
}

// Clone is a copy of the counts that shares no map with them.
func (c Counts) Clone() Counts {
	c.Failures = maps.Clone(c.Failures)
	c.Skipped = maps.Clone(c.Skipped)
	return c
}

// Fate is what a URL of a crawl came to, or that it waits.
type Fate string

// The fates of a URL. Queued waits for its turn (or was in flight when
// the crawl stopped); Seen was met and is not to be asked (a redirect's
// target, fetched with its source; a page's Markdown alternate); Claimed
// is a page's canonical URL, which a twin of it is a duplicate of; the
// rest are what a crawl's events say.
const (
	Queued    Fate = "queued"
	Seen      Fate = "seen"
	Claimed   Fate = "claimed"
	Stored    Fate = "stored"
	Unchanged Fate = "unchanged"
	Skipped   Fate = "skipped"
	Failed    Fate = "failed"
	Removed   Fate = "removed"
)

// Ended reports whether a URL of this fate is not to be asked again.
func (f Fate) Ended() bool { return f != Queued }

// Entry is one URL of a crawl's frontier. A later entry of a URL
// replaces an earlier one.
type Entry struct {
	URL   string
	Fate  Fate
	Depth int
	// LastMod and Via are a queued URL's: what a sitemap said of it, and
	// how it was found where not by a link.
	LastMod string
	Via     []string
	// Hash is a stored or unchanged page's content hash: a twin of it
	// found after a resume is a duplicate still.
	Hash string
}

// Turn is a host's next turn: no request to it before At.
type Turn struct {
	Host string
	At   time.Time
}

// Robots is an origin's robots.txt as read, until it expires.
type Robots struct {
	Origin string
	// Status is robots.Status's text (parsed, unavailable, unreachable),
	// HTTPStatus the final response's, Cause why it is not parsed, Body
	// the file.
	Status     string
	HTTPStatus int
	Cause      string
	Body       []byte
	Until      time.Time
}

// Ledger keeps crawls and their state. Its methods are safe for
// concurrent use.
type Ledger interface {
	// Begin records a new crawl (c, its ID and state set by Begin), or
	// takes up the crawl to resume: the crawl of ID resume, or else, for
	// resume 0, the last crawl of c.Key that may be resumed and that no
	// crawl of this process runs. It returns the crawl as recorded, now
	// Running, and, of one taken up, its entries (each URL's last, the
	// queued ones in the order they were queued). A resume ID of no
	// crawl is an error wrapping ErrNoCrawl; of a crawl that cannot be
	// resumed, one wrapping ErrNotResumable.
	Begin(ctx context.Context, c Crawl, resume int64) (Crawl, []Entry, error)
	// Write records entries of a running crawl, in order, with its
	// counts so far and the hosts' next turns, in one transaction.
	Write(ctx context.Context, id int64, entries []Entry, counts Counts, turns []Turn) error
	// Finish records a crawl's end: its state and its final counts,
	// frozen from then on.
	Finish(ctx context.Context, id int64, state State, counts Counts) error
	// Crawls are the last limit crawls, newest first; Crawl one of them
	// (ErrNoCrawl when there is none).
	Crawls(ctx context.Context, limit int) ([]Crawl, error)
	Crawl(ctx context.Context, id int64) (Crawl, error)
	// Kept are the pages the crawl of id kept after the one of Seq after
	// (0 for the first), in the order it kept them, limit at most.
	Kept(ctx context.Context, id, after int64, limit int) ([]Kept, error)
	// Turns are the hosts' next turns still ahead.
	Turns(ctx context.Context) ([]Turn, error)
	// Robots is an origin's robots.txt as read, while it lives; ok is
	// false when none is kept. PutRobots keeps one.
	Robots(ctx context.Context, origin string) (r Robots, ok bool, err error)
	PutRobots(ctx context.Context, r Robots) error
}

// ErrNoCrawl is the error of a crawl ID the ledger does not hold.
var ErrNoCrawl = errors.New("no such crawl")

// ErrNotResumable is the error of resuming a crawl that is done, or
// that a crawl of this process runs.
var ErrNotResumable = errors.New("the crawl cannot be resumed")
