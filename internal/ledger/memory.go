package ledger

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"
)

// Memory is a Ledger in memory: what a crawl keeps lives as long as the
// process. Tests use it; the zero value is ready to use.
type Memory struct {
	mu     sync.Mutex
	crawls []Crawl
	urls   map[int64]*frontier
	active map[int64]bool
	turns  map[string]time.Time
	robots map[string]Robots
}

// frontier is one crawl's entries: each URL's last, in the order the URLs
// were first met, and its queued URLs in the order they were queued.
type frontier struct {
	order []string
	last  map[string]Entry
	seq   map[string]int // when each URL was last queued
	n     int
	kept  []Kept // the pages kept, in the order they were
}

var _ Ledger = (*Memory)(nil)

func (m *Memory) Begin(_ context.Context, c Crawl, resume int64) (Crawl, []Entry, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.active == nil {
		m.active, m.urls = map[int64]bool{}, map[int64]*frontier{}
	}
	i := -1
	for j := len(m.crawls) - 1; j >= 0; j-- {
		if resume != 0 && m.crawls[j].ID == resume || resume == 0 && m.crawls[j].Key == c.Key && m.crawls[j].State.Resumable() && !m.active[m.crawls[j].ID] {
			i = j
			break
		}
	}
	switch {
	case resume != 0 && i < 0:
		return Crawl{}, nil, fmt.Errorf("crawl %d: %w", resume, ErrNoCrawl)
	case resume != 0 && (!m.crawls[i].State.Resumable() || m.active[resume]):
		return Crawl{}, nil, fmt.Errorf("crawl %d is %s: %w", resume, m.crawls[i].State, ErrNotResumable)
	case i < 0:
		c.ID = int64(len(m.crawls) + 1)
		c.State, c.Began, c.Ended, c.Resumed = Running, time.Now().UTC(), time.Time{}, 0
		c.Counts = c.Counts.Clone()
		m.crawls = append(m.crawls, c)
		m.urls[c.ID] = &frontier{last: map[string]Entry{}, seq: map[string]int{}}
		m.active[c.ID] = true
		return c, nil, nil
	}
	m.crawls[i].State = Running
	m.crawls[i].Resumed++
	m.crawls[i].By = c.By // whoever takes it up's now
	if c.Options != "" {
		m.crawls[i].Options = c.Options
	}
	m.active[m.crawls[i].ID] = true
	f := m.urls[m.crawls[i].ID]
	entries := make([]Entry, 0, len(f.order))
	var queued []Entry
	for _, u := range f.order {
		if e := f.last[u]; e.Fate == Queued {
			queued = append(queued, e)
		} else {
			entries = append(entries, e)
		}
	}
	slices.SortStableFunc(queued, func(a, b Entry) int { return f.seq[a.URL] - f.seq[b.URL] })
	out := m.crawls[i]
	out.Counts = out.Counts.Clone()
	return out, append(entries, queued...), nil
}

func (m *Memory) Write(_ context.Context, id int64, entries []Entry, counts Counts, turns []Turn) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	f, i := m.urls[id], m.index(id)
	if f == nil || i < 0 {
		return fmt.Errorf("crawl %d: %w", id, ErrNoCrawl)
	}
	for _, e := range entries {
		if _, ok := f.last[e.URL]; !ok {
			f.order = append(f.order, e.URL)
		}
		switch e.Fate {
		case Queued:
			f.n++
			f.seq[e.URL] = f.n
		case Stored, Unchanged:
			if old, ok := f.last[e.URL]; !ok || (old.Fate != Stored && old.Fate != Unchanged) {
				f.kept = append(f.kept, Kept{URL: e.URL, Fate: e.Fate, Seq: int64(len(f.kept) + 1)})
			}
		}
		e.Via = slices.Clone(e.Via)
		f.last[e.URL] = e
	}
	if m.crawls[i].State == Running {
		m.crawls[i].Counts = counts.Clone()
	}
	m.putTurns(turns)
	return nil
}

func (m *Memory) putTurns(turns []Turn) {
	if m.turns == nil {
		m.turns = map[string]time.Time{}
	}
	for _, t := range turns {
		if t.At.After(m.turns[t.Host]) {
			m.turns[t.Host] = t.At
		}
	}
}

func (m *Memory) Finish(_ context.Context, id int64, state State, counts Counts) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	i := m.index(id)
	if i < 0 || m.crawls[i].State != Running {
		return fmt.Errorf("crawl %d: %w", id, ErrNoCrawl)
	}
	m.crawls[i].State, m.crawls[i].Ended = state, time.Now().UTC()
	m.crawls[i].Counts = counts.Clone()
	delete(m.active, id)
	return nil
}

// Interrupt marks the crawls it runs as interrupted, as a process that
// dies leaves them to the next: a test's kill.
func (m *Memory) Interrupt() {
	m.mu.Lock()
	defer m.mu.Unlock()
	for i := range m.crawls {
		if m.crawls[i].State == Running {
			m.crawls[i].State = Interrupted
		}
	}
	clear(m.active)
}

func (m *Memory) index(id int64) int {
	for i := range m.crawls {
		if m.crawls[i].ID == id {
			return i
		}
	}
	return -1
}

func (m *Memory) Crawls(_ context.Context, limit int) ([]Crawl, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []Crawl
	for i := len(m.crawls) - 1; i >= 0 && len(out) < limit; i-- {
		c := m.crawls[i]
		c.Counts = c.Counts.Clone()
		out = append(out, c)
	}
	return out, nil
}

func (m *Memory) Crawl(_ context.Context, id int64) (Crawl, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if i := m.index(id); i >= 0 {
		c := m.crawls[i]
		c.Counts = c.Counts.Clone()
		return c, nil
	}
	return Crawl{}, fmt.Errorf("crawl %d: %w", id, ErrNoCrawl)
}

func (m *Memory) Kept(_ context.Context, id, after int64, limit int) ([]Kept, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	f := m.urls[id]
	if f == nil {
		if m.index(id) < 0 {
			return nil, fmt.Errorf("crawl %d: %w", id, ErrNoCrawl)
		}
		return nil, nil
	}
	if after < 0 || after > int64(len(f.kept)) {
		after = int64(len(f.kept))
	}
	return slices.Clone(f.kept[after:min(int64(len(f.kept)), after+int64(max(limit, 0)))]), nil
}

func (m *Memory) Turns(context.Context) ([]Turn, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []Turn
	now := time.Now()
	for h, at := range m.turns {
		if at.After(now) {
			out = append(out, Turn{Host: h, At: at})
		}
	}
	return out, nil
}

func (m *Memory) Robots(_ context.Context, origin string) (Robots, bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	r, ok := m.robots[origin]
	if !ok || !r.Until.After(time.Now()) {
		return Robots{}, false, nil
	}
	return r, true, nil
}

func (m *Memory) PutRobots(_ context.Context, r Robots) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.robots == nil {
		m.robots = map[string]Robots{}
	}
	r.Body = slices.Clone(r.Body)
	m.robots[r.Origin] = r
	return nil
}
