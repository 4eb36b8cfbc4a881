package team

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/heedhq/heed"
	"github.com/heedhq/heed/internal/polite"
	"github.com/heedhq/heed/internal/wait"
)

// Turns are the turns of hosts as a team's database holds them, for
// work beside the workers (heed mcp --db): a request takes its host's
// lease, as a worker's job does, waits for the host's next allowed time,
// and sets it when done. So every process of a team keeps one schedule
// per host. Turns are safe for concurrent use.
type Turns struct {
	pool  *pgxpool.Pool
	ttl   time.Duration
	owner string
	// patience is how long a request waits for a host that another
	// holds before it fails with ErrBusy; 0 waits as long as its
	// context lets it.
	patience time.Duration
	// byDelay adds the host's last delay to patience: a job that holds
	// the host lets it go at its next request, its delay after the
	// last.
	byDelay bool
}

// ErrBusy is the error of a request whose host another worker held for
// longer than the request could wait.
var ErrBusy = errors.New("its host is held by another worker's crawl")

var _ polite.Turns = (*Turns)(nil)

// NewTurns returns the turns of the database's hosts. A request holds
// its host for at most ttl (0 means DefaultLeaseTTL), which must be
// longer than any request takes.
func NewTurns(pool *pgxpool.Pool, ttl time.Duration) *Turns {
	if ttl <= 0 {
		ttl = DefaultLeaseTTL
	}
	return &Turns{pool: pool, ttl: ttl, owner: ownerName("turns-")}
}

// pollMax is the longest a request waits before it asks again for a
// host that another holds.
const pollMax = 500 * time.Millisecond

// Acquire waits for the host's lease and its next allowed time.
func (t *Turns) Acquire(ctx context.Context, host string) (func(time.Duration), error) {
	if len(host) > 300 {
		return nil, polite.ErrHostTooLong
	}
	// Each request is a lease of its own: an owner per request, so that
	// two requests of this process to one host are one at a time too.
	owner := t.owner + "/" + randomID(4)
	if _, err := t.pool.Exec(ctx, `INSERT INTO heed_host (host) VALUES ($1) ON CONFLICT DO NOTHING`, host); err != nil {
		return nil, err
	}
	began := time.Now()
	for {
		d, ok, err := takeLease(ctx, t.pool, host, owner, t.ttl)
		if err != nil {
			return nil, err
		}
		if !ok {
			// Its holder lets it go before its next request (a
			// worker's job, at its next claim).
			var ms int64
			if err := t.pool.QueryRow(ctx, `UPDATE heed_host SET wanted_at = now() WHERE host = $1 RETURNING delay_ms`, host).Scan(&ms); err != nil {
				return nil, err
			}
			patience := t.patience
			if t.byDelay {
				// At most a lease's time: a job's slice waits no longer
				// for a robots.txt hop than for a holder that died.
				patience += min(time.Duration(ms)*time.Millisecond, t.ttl)
			}
			if t.patience > 0 && time.Since(began) > patience {
				t.unwant(context.WithoutCancel(ctx), host)
				return nil, fmt.Errorf("%w: waited %v", ErrBusy, patience.Round(time.Millisecond))
			}
		}
		if ok {
			if err := t.sleep(ctx, d); err != nil {
				t.let(context.WithoutCancel(ctx), host, owner, 0)
				return nil, err
			}
			return func(delay time.Duration) { t.let(context.WithoutCancel(ctx), host, owner, delay) }, nil
		}
		if err := t.sleep(ctx, min(max(d, 10*time.Millisecond), pollMax)); err != nil {
			t.unwant(context.WithoutCancel(ctx), host)
			return nil, err
		}
	}
}

// unwant takes back a wish for a host that a request gave up waiting
// for, so that its holder does not let it go for nobody. (Another
// waiter's wish, taken back too, is made again at its next look.)
func (t *Turns) unwant(ctx context.Context, host string) {
	t.pool.Exec(ctx, `UPDATE heed_host SET wanted_at = NULL WHERE host = $1`, host)
}

var errPastDeadline = errors.New("the next request to this host would come after the deadline")

func (t *Turns) sleep(ctx context.Context, d time.Duration) error {
	if dl, ok := ctx.Deadline(); ok && time.Now().Add(d).After(dl) {
		return errPastDeadline
	}
	return wait.Sleep(ctx, d)
}

// let lets the host go, its next turn delay from now.
func (t *Turns) let(ctx context.Context, host, owner string, delay time.Duration) {
	t.pool.Exec(ctx, `
		UPDATE heed_host SET next_at = greatest(next_at, now() + make_interval(secs => $3)),
			delay_ms = CASE WHEN $4 > 0 THEN $4 ELSE delay_ms END, lease_owner = NULL, lease_until = NULL, wanted_at = NULL
		WHERE host = $1 AND lease_owner = $2`, host, owner, delay.Seconds(), delay.Milliseconds())
}

// takeLease takes the host's lease for owner (a row for it must be
// there). Taken from a holder whose lease ran out, the host's next turn
// is its delay after the lease's end, when the holder's last request was
// over. wait is how long until the host's next turn, or, when another
// holds it, how long its lease has left.
func takeLease(ctx context.Context, pool *pgxpool.Pool, host, owner string, ttl time.Duration) (wait time.Duration, ok bool, err error) {
	var secs float64
	var taken bool
	err = pool.QueryRow(ctx, `
		WITH t AS (
			UPDATE heed_host SET lease_owner = $2, lease_until = now() + make_interval(secs => $3),
				next_at = CASE WHEN lease_owner IS NOT NULL AND lease_owner <> $2
					THEN greatest(next_at, lease_until + make_interval(secs => delay_ms / 1000.0)) ELSE next_at END
			WHERE host = $1 AND (lease_owner IS NULL OR lease_owner = $2 OR lease_until < now())
			RETURNING next_at
		)
		SELECT true, greatest(extract(epoch FROM next_at - now()), 0)::float8 FROM t
		UNION ALL
		SELECT false, coalesce(greatest(extract(epoch FROM lease_until - now()), 0), 0)::float8
		FROM heed_host WHERE host = $1 AND NOT EXISTS (SELECT 1 FROM t)`,
		host, owner, ttl.Seconds()).Scan(&taken, &secs)
	return seconds(secs), taken, err
}

// ownerName names a holder of leases in this process: the machine, the
// process, and a random part (kind, then hex), so that no two holders
// anywhere share one. A job run's or a request's name adds a part.
func ownerName(kind string) string {
	host, _ := os.Hostname()
	return fmt.Sprintf("%s/%d/%s%s", heed.Clip(host, 64), os.Getpid(), kind, randomID(6))
}

// randomID is n random bytes in hex.
func randomID(n int) string {
	b := make([]byte, n)
	rand.Read(b)
	return hex.EncodeToString(b)
}
