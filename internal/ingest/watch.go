package ingest

import "github.com/heedhq/heed"

// A Change is what a crawl of the service changed in its store: a
// snapshot it stored, new or changed (its ID, URL and Source), or the end
// of a crawl that stored any (Ended, with its Source), once what it
// stored is all listed (ListPage) and counted (Sources).
type Change struct {
	ID, URL, Source string
	Ended           bool
}

// Watch has f told of every Change the service's crawls make, until stop
// is called: crawls of every door of this process, not those of another
// process writing the same store. f is called from the crawls'
// goroutines as each page is stored, several at once, and must return
// quickly: the crawl waits for it.
func (s *Service) Watch(f func(Change)) (stop func()) {
	s.watchMu.Lock()
	defer s.watchMu.Unlock()
	if s.watchers == nil {
		s.watchers = map[int]func(Change){}
	}
	s.watched++
	n := s.watched
	s.watchers[n] = f
	return func() {
		s.watchMu.Lock()
		defer s.watchMu.Unlock()
		delete(s.watchers, n)
	}
}

// changed tells the watchers of a change.
func (s *Service) changed(c Change) {
	s.watchMu.Lock()
	fs := make([]func(Change), 0, len(s.watchers))
	for _, f := range s.watchers {
		fs = append(fs, f)
	}
	s.watchMu.Unlock()
	for _, f := range fs {
		f(c)
	}
}

// stored tells the watchers of a snapshot a crawl stored.
func (s *Service) stored(source, url string) {
	s.changed(Change{ID: heed.IDOf(url), URL: url, Source: source})
}
