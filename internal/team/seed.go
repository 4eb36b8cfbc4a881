package team

import (
	"context"
	"errors"
	"net/url"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/riverqueue/river"

	"github.com/heedhq/heed/internal/crawl"
	"github.com/heedhq/heed/internal/polite"
)

// SeedArgs is the River job that seeds a crawl, once, with the pages its
// start origin's sitemaps (robots.txt's Sitemap lines and /sitemap.xml)
// and /llms.txt list, one link from the start, as a crawl on one machine
// does.
type SeedArgs struct {
	Crawl int64 `json:"crawl"`
}

// Kind is the job's kind in River.
func (SeedArgs) Kind() string { return "heed_seed" }

// InsertOpts put the job in heed's queue; a job that failed (the
// database away) is tried again a few times.
func (SeedArgs) InsertOpts() river.InsertOpts {
	return river.InsertOpts{Queue: Queue, MaxAttempts: 5}
}

type seedWorker struct {
	river.WorkerDefaults[SeedArgs]
	w *Worker
}

// Timeout bounds the reading as a host's job is bounded, so that a job
// whose worker died is rescued as soon.
func (sw *seedWorker) Timeout(*river.Job[SeedArgs]) time.Duration { return sw.w.jobTimeout() }

func (sw *seedWorker) Work(ctx context.Context, job *river.Job[SeedArgs]) error {
	err := sw.w.seed(ctx, job.Args.Crawl)
	if err != nil && job.Attempt >= job.MaxAttempts {
		// The last try: the crawl goes on, done once its pages are,
		// without what its sitemaps list.
		sw.w.Logger.Warn("heed: a crawl's sitemaps and llms.txt", "crawl", job.Args.Crawl, "error", err)
		return errors.Join(err, sw.w.seeded(context.WithoutCancel(ctx), job.Args.Crawl))
	}
	return err
}

// seed reads the crawl's seeds (llms.txt, then sitemaps: the engine's
// Seed, once the start URL and where it redirected have ended) and
// queues the pages they list with their hosts' jobs, in one transaction: within the crawl's
// scope and robots.txt, as many as its max_pages at most. Every request
// takes its host's turn in the database (the start host's job lets the
// host go for it), is spaced by its host's delay, and is made only where
// robots.txt allows it.
func (w *Worker) seed(ctx context.Context, id int64) error {
	c, err := w.crawl(ctx, id)
	if err != nil {
		return err
	}
	o := c.o
	su, err := url.Parse(o.Start)
	if err != nil {
		return err
	}
	// The start URL first, and where it redirected to: llms.txt is read
	// from the start page kept, as on one machine; a job run again after
	// its seeds were queued has nothing to do.
	var seeded, waiting bool
	var from string
	var doneList []string
	if err := w.Pool.QueryRow(ctx, `
		SELECT c.seeded,
			EXISTS (SELECT 1 FROM heed_frontier f WHERE f.crawl = c.id AND f.depth = 0 AND f.state = 'queued'),
			coalesce((SELECT f.url FROM heed_frontier f WHERE f.crawl = c.id AND f.depth = 0 AND f.state = 'done' ORDER BY f.seq LIMIT 1), ''),
			coalesce((SELECT array_agg(s.url) FROM heed_seed_file s WHERE s.crawl = c.id), '{}')
		FROM heed_crawl c WHERE c.id = $1`, id).Scan(&seeded, &waiting, &from, &doneList); err != nil {
		return err
	}
	switch {
	case seeded:
		return nil
	case waiting:
		return river.JobSnooze(2 * time.Second)
	}
	// What a run before this one read to its end (the job is resumed
	// when its time ran out), and the time this run reads for: a run
	// that ends for lack of time queues what it read, notes what it
	// read to its end, and is resumed.
	done := map[string]bool{}
	for _, d := range doneList {
		if d == "/llms.txt" {
			// An earlier heed noted so the llms.txt of the origin the
			// start page was kept on.
			if fu, err := url.Parse(from); err == nil && from != "" {
				d = fu.Scheme + "://" + fu.Host + d
			}
		}
		done[d] = true
	}
	progressed := false
	rctx := ctx
	if dl, ok := ctx.Deadline(); ok {
		var cancel context.CancelFunc
		rctx, cancel = context.WithDeadline(ctx, dl.Add(-min(30*time.Second, time.Until(dl)/4)))
		defer cancel()
	}
	host := polite.HostKey(su)
	s := &slice{w: w, host: host, turns: newHeld(host), silent: map[string]error{}}
	it := item{url: o.Start, c: c}
	p := s.pageRequests(it, o.Delay)
	// Its requests wait for their hosts as long as the job may: the
	// start host's job lets it go before its next request.
	p.turns = NewTurns(w.Pool, w.turns.ttl)
	allowed := func(raw string) bool { return p.allowed(rctx, raw) == nil }
	client := func(string) *polite.Client { return polite.New(w.HTTP, p, o.Delay) }
	var listed []string
	if !o.NoRobots {
		out, err := p.robots(rctx, su)
		if rctx.Err() != nil {
			return river.JobSnooze(time.Second) // resumed, with time of its own
		}
		if err == nil {
			if out.Robots != nil {
				listed = out.Robots.Sitemaps
			}
		}
	}
	// The pages listed in the crawl's scope, quietly: a sitemap may list
	// a site's every page, and those out of scope are not the crawl's.
	// They are queued a batch at a time as they are read, so that a job
	// that runs out of time has queued what it read.
	llmsTxt := map[string]bool{} // the pages llms.txt lists, read as Markdown
	var pending []string
	var failed error
	seen := map[string]bool{o.Start: true}
	var read []string // read to its end since the last flush
	flush := func(last bool) {
		if failed != nil || len(pending) == 0 && len(read) == 0 && !last {
			return
		}
		failed = w.queueSeeds(context.WithoutCancel(ctx), c, s, it, host, pending, llmsTxt, read, last)
		pending, read = pending[:0], read[:0]
	}
	offer := func(raw string) {
		if seen[raw] || len(seen) > o.MaxPages || len(raw) > MaxURLLength {
			return
		}
		u, err := url.Parse(raw)
		if err != nil || u.Path == "/robots.txt" {
			return
		}
		// Seeds are a crawl's depth 1.
		if reason, _ := c.eng.Admit(u, 1); reason != "" {
			return
		}
		seen[raw] = true
		if pending = append(pending, raw); len(pending) >= seedBatch {
			flush(false)
		}
	}
	// The engine's one seeding step reads them, in its order, as on one
	// machine; each seed file it read to its end is noted with what it
	// listed, so that a run resumed reads it no more.
	unread, cut := c.eng.Seed(rctx, crawl.Seeding{
		From:    from,
		Listed:  listed,
		Client:  client,
		Allowed: allowed,
		Full:    func() bool { return len(seen) > o.MaxPages || failed != nil },
		Offer: func(it crawl.Item) {
			if slices.Contains(it.Via, crawl.ViaLLMsTxt) {
				llmsTxt[it.URL] = true
			}
			offer(it.URL)
		},
		Done: func(file string) bool { return done[file] },
		Read: func(file string) {
			read, progressed = append(read, file), true
			flush(false)
		},
	})
	if unread > 0 && cut == nil && rctx.Err() == nil {
		// Sitemaps not read: the crawl cannot say that a page only they
		// list is gone (sweepEnded).
		if _, err := w.Pool.Exec(ctx, `UPDATE heed_crawl SET sitemaps_unread = sitemaps_unread + $2 WHERE id = $1`, id, unread); err != nil {
			return err
		}
	}
	if cut != nil || rctx.Err() != nil {
		flush(false)
		if failed == nil && progressed && ctx.Err() == nil {
			return river.JobSnooze(time.Second) // resumed, with time of its own
		}
		if failed == nil && !progressed {
			// Not one sitemap read to its end in a run's time: given
			// up, what was read queued.
			w.Logger.Warn("heed: a crawl's sitemaps take longer than a run to read; the rest are left", "crawl", id)
			flush(true)
		}
		return errors.Join(failed, ctx.Err())
	}
	flush(true)
	return failed
}

// seedBatch is how many pages a seed job queues in one transaction.
const seedBatch = 1000

// queueSeeds queues pages a crawl's sitemaps or llms.txt listed, one link
// from the start, with their hosts' jobs, and notes the sitemaps read to
// their end (read), in one transaction; the last batch marks the crawl
// seeded, and ends it when no URL of it waits. The crawl's row is
// changed after the frontier's and the hosts' rows, as a commit's is
// (countEnds), so that the two never wait on each other.
func (w *Worker) queueSeeds(ctx context.Context, c *crawlInfo, s *slice, it item, host string, urls []string, llmsTxt map[string]bool, read []string, last bool) error {
	qs := s.links(it, urls, 1)
	for i := range qs {
		if llmsTxt[qs[i].url] {
			qs[i].via = []string{crawl.ViaLLMsTxt}
		}
	}
	var removed []crawl.Event
	err := inTx(ctx, w.Pool, func(tx pgx.Tx) error {
		removed = nil
		ended := tally{}
		if len(qs) > 0 {
			b := &pgx.Batch{}
			queueLinks(b, c, qs, host)
			br := tx.SendBatch(ctx, b)
			due, asleep, t, _, err := readLocked(br) // a seed out of scope is counted, not told (as on one machine)
			if err := errors.Join(err, br.Close()); err != nil {
				return err
			}
			if err := wake(ctx, tx, w.inserter, due, asleep); err != nil {
				return err
			}
			ended = t
		}
		ended.add(c.id, "queued", "", 0)
		done, err := countEnds(ctx, tx, ended)
		if err != nil {
			return err
		}
		if removed, err = w.sweepEnded(ctx, tx, done); err != nil {
			return err
		}
		if len(read) > 0 {
			if _, err := tx.Exec(ctx, `INSERT INTO heed_seed_file (crawl, url) SELECT $1, unnest($2::text[]) ON CONFLICT DO NOTHING`, c.id, read); err != nil {
				return err
			}
		}
		if !last {
			return nil
		}
		if _, err := tx.Exec(ctx, `UPDATE heed_crawl SET seeded = true WHERE id = $1`, c.id); err != nil {
			return err
		}
		done, err = endCrawls(ctx, tx, []int64{c.id})
		if err != nil {
			return err
		}
		more, err := w.sweepEnded(ctx, tx, done)
		removed = append(removed, more...)
		return err
	})
	if err == nil {
		w.tell(removed)
	}
	return err
}
