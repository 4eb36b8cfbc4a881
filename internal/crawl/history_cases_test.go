package crawl

import "testing"

// crawlAgain crawls o with c and fails the test on an error; it returns
// the crawl's summary and events. A store that batches its writes is
// flushed after the crawl, as closing it at the end of a heed command
// does: the removals a crawl's sweep makes wait in a batch that the
// crawl does not flush.
func crawlAgain(t *testing.T, c *Crawler, o Options) (*Summary, *events) {
	t.Helper()
	var ev events
	sum, err := c.Crawl(t.Context(), o, ev.add)
	if err != nil {
		t.Fatalf("crawl: %v", err)
	}
	if b, ok := c.Store.(Batcher); ok {
		if err := b.Flush(t.Context()); err != nil {
			t.Fatal(err)
		}
	}
	return sum, &ev
}
