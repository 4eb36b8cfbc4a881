package ledgertest

import (
	"errors"
	"maps"
	"slices"
	"testing"
	"time"

	"github.com/heedhq/heed/internal/ledger"
)

// Run runs the suite on ledgers that open makes, an empty one each call.
func Run(t *testing.T, open func(t *testing.T) ledger.Ledger) {
	t.Run("resume", func(t *testing.T) { resume(t, open(t)) })
	t.Run("frozen", func(t *testing.T) { frozen(t, open(t)) })
	t.Run("byID", func(t *testing.T) { byID(t, open(t)) })
	t.Run("politeness", func(t *testing.T) { politeness(t, open(t)) })
	t.Run("kept", func(t *testing.T) { kept(t, open(t)) })
	t.Run("cancelled", func(t *testing.T) { cancelled(t, open(t)) })
}

// kept: a crawl's pages kept are listed in the order they were kept (not
// queued), each once, paged by the Seq of the last one given, after its
// end too; a page found kept again (a later write) keeps its place.
func kept(t *testing.T, l ledger.Ledger) {
	ctx := t.Context()
	rec, _, err := l.Begin(ctx, ledger.Crawl{Key: "k", Start: "https://a.example/", By: ledger.ByAgent}, 0)
	if err != nil {
		t.Fatal(err)
	}
	if rec.By != ledger.ByAgent {
		t.Errorf("By = %q, want %q", rec.By, ledger.ByAgent)
	}
	q := func(u string) ledger.Entry { return ledger.Entry{URL: "https://a.example/" + u, Fate: ledger.Queued} }
	end := func(u string, f ledger.Fate) ledger.Entry {
		return ledger.Entry{URL: "https://a.example/" + u, Fate: f}
	}
	for _, batch := range [][]ledger.Entry{
		{q("a"), q("b"), q("c"), q("d")},
		{end("c", ledger.Stored), end("a", ledger.Failed)},
		{end("b", ledger.Unchanged), end("d", ledger.Stored)},
		{end("c", ledger.Stored)}, // written again: keeps its place
	} {
		if err := l.Write(ctx, rec.ID, batch, ledger.Counts{}, nil); err != nil {
			t.Fatal(err)
		}
	}
	// A crawl that ended still lists what it kept.
	if err := l.Finish(ctx, rec.ID, ledger.Done, ledger.Counts{}); err != nil {
		t.Fatal(err)
	}
	var got []string
	var after int64
	for range 10 {
		page, err := l.Kept(ctx, rec.ID, after, 2)
		if err != nil {
			t.Fatal(err)
		}
		if len(page) == 0 {
			break
		}
		if len(page) > 2 {
			t.Fatalf("a page of %d, limit 2", len(page))
		}
		for _, k := range page {
			got = append(got, k.URL[len("https://a.example/"):]+" "+string(k.Fate))
		}
		after = page[len(page)-1].Seq
	}
	if want := []string{"c stored", "b unchanged", "d stored"}; !slices.Equal(got, want) {
		t.Errorf("kept %q, want %q", got, want)
	}
	if got, _ := l.Crawl(ctx, rec.ID); got.By != ledger.ByAgent {
		t.Errorf("read back, By = %q, want %q", got.By, ledger.ByAgent)
	}
	if _, err := l.Kept(ctx, rec.ID+100, 0, 10); !errors.Is(err, ledger.ErrNoCrawl) {
		t.Errorf("Kept of no crawl: %v, want ErrNoCrawl", err)
	}
}

// cancelled: a crawl cancelled is not taken up again by its key, nor by
// its ID.
func cancelled(t *testing.T, l ledger.Ledger) {
	ctx := t.Context()
	c := ledger.Crawl{Key: "k", Start: "https://a.example/"}
	rec, _, err := l.Begin(ctx, c, 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := l.Write(ctx, rec.ID, []ledger.Entry{{URL: "https://a.example/x", Fate: ledger.Queued}}, ledger.Counts{}, nil); err != nil {
		t.Fatal(err)
	}
	if err := l.Finish(ctx, rec.ID, ledger.Cancelled, ledger.Counts{}); err != nil {
		t.Fatal(err)
	}
	if again, _, err := l.Begin(ctx, c, 0); err != nil || again.ID == rec.ID {
		t.Errorf("the same key after a cancel: %+v, %v; want a crawl of its own", again, err)
	}
	if _, _, err := l.Begin(ctx, c, rec.ID); !errors.Is(err, ledger.ErrNotResumable) {
		t.Errorf("resuming a crawl cancelled: %v, want ErrNotResumable", err)
	}
}

func urls(es []ledger.Entry) []string {
	var out []string
	for _, e := range es {
		out = append(out, e.URL+" "+string(e.Fate))
	}
	return out
}

// resume: a crawl cut short is taken up by its key, with its entries,
// those ended first and the queued in the order they were last queued;
// a crawl running is not taken up by another.
func resume(t *testing.T, l ledger.Ledger) {
	ctx := t.Context()
	c := ledger.Crawl{Key: `{"start":"https://a.example/"}`, Start: "https://a.example/", Source: "a"}
	rec, entries, err := l.Begin(ctx, c, 0)
	if err != nil || rec.ID == 0 || rec.State != ledger.Running || rec.Resumed != 0 || len(entries) != 0 {
		t.Fatalf("a new crawl: %+v, %v, %v", rec, entries, err)
	}
	// Another crawl of the key while it runs is a crawl of its own.
	other, _, err := l.Begin(ctx, c, 0)
	if err != nil || other.ID == rec.ID {
		t.Fatalf("a crawl of the same key beside a running one: %+v, %v", other, err)
	}
	if err := l.Finish(ctx, other.ID, ledger.Done, ledger.Counts{}); err != nil {
		t.Fatal(err)
	}
	// A crawl's entries are its own: the crawl taken up below has none
	// of another's, cut short too.
	another, _, err := l.Begin(ctx, ledger.Crawl{Key: "another", Start: "https://a.example/other/"}, 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := l.Write(ctx, another.ID, []ledger.Entry{{URL: "https://a.example/other/x", Fate: ledger.Queued}}, ledger.Counts{}, nil); err != nil {
		t.Fatal(err)
	}
	if err := l.Finish(ctx, another.ID, ledger.Interrupted, ledger.Counts{}); err != nil {
		t.Fatal(err)
	}
	q := func(u string) ledger.Entry {
		return ledger.Entry{URL: u, Fate: ledger.Queued, Depth: 1, Via: []string{"llms.txt"}, LastMod: "2026-01-02"}
	}
	if err := l.Write(ctx, rec.ID, []ledger.Entry{q("https://a.example/"), q("https://a.example/b"), q("https://a.example/c"), q("https://a.example/d")}, ledger.Counts{Requests: 1}, nil); err != nil {
		t.Fatal(err)
	}
	// Two failures, one of a reason known.
	counts := ledger.Counts{Requests: 3, Stored: 1, Failed: 2, Failures: map[string]int{"http 500": 1}, Skipped: map[string]int{"robots": 1}}
	if err := l.Write(ctx, rec.ID, []ledger.Entry{
		{URL: "https://a.example/", Fate: ledger.Stored, Hash: "h1"},
		{URL: "https://a.example/x", Fate: ledger.Skipped},
		q("https://a.example/b"), // queued again: behind c and d
		{URL: "https://a.example/moved", Fate: ledger.Seen},
	}, counts, nil); err != nil {
		t.Fatal(err)
	}
	if err := l.Finish(ctx, rec.ID, ledger.Interrupted, counts); err != nil {
		t.Fatal(err)
	}
	got, entries, err := l.Begin(ctx, c, 0)
	if err != nil || got.ID != rec.ID || got.State != ledger.Running || got.Resumed != 1 {
		t.Fatalf("the crawl taken up: %+v, %v; want crawl %d, running, resumed once", got, err, rec.ID)
	}
	if got.Counts.Requests != 3 || got.Counts.Stored != 1 || got.Counts.Skipped["robots"] != 1 || got.Counts.Failed != 2 || !maps.Equal(got.Counts.Failures, counts.Failures) {
		t.Errorf("the crawl taken up has counts %+v, want %+v", got.Counts, counts)
	}
	if read, err := l.Crawl(ctx, rec.ID); err != nil || read.Counts.Failed != 2 || !maps.Equal(read.Counts.Failures, counts.Failures) {
		t.Errorf("the crawl read has counts %+v, %v; want %+v", read.Counts, err, counts)
	}
	n := len(entries)
	if n != 6 {
		t.Fatalf("entries %q: want 6", urls(entries))
	}
	ended := urls(entries[:3])
	slices.Sort(ended)
	if want := []string{"https://a.example/ stored", "https://a.example/moved seen", "https://a.example/x skipped"}; !slices.Equal(ended, want) {
		t.Errorf("ended entries %q, want %q", ended, want)
	}
	if got, want := urls(entries[3:]), []string{"https://a.example/c queued", "https://a.example/d queued", "https://a.example/b queued"}; !slices.Equal(got, want) {
		t.Errorf("queued entries %q, want %q, in order", got, want)
	}
	for _, e := range entries {
		if e.URL == "https://a.example/" && e.Hash != "h1" {
			t.Errorf("the stored page's hash is %q", e.Hash)
		}
		if e.URL == "https://a.example/c" && (e.Depth != 1 || e.LastMod != "2026-01-02" || !slices.Equal(e.Via, []string{"llms.txt"})) {
			t.Errorf("a queued entry comes back as %+v", e)
		}
	}
	// Running now, it is not taken up again.
	again, _, err := l.Begin(ctx, c, 0)
	if err != nil || again.ID == rec.ID {
		t.Errorf("a crawl taken up while it runs: %+v, %v", again, err)
	}
}

// frozen: a crawl's counts are frozen when it ends; a crawl done is
// not taken up again, and the next of its key is a new crawl.
func frozen(t *testing.T, l ledger.Ledger) {
	ctx := t.Context()
	c := ledger.Crawl{Key: "k", Start: "https://b.example/", Source: "b"}
	rec, _, err := l.Begin(ctx, c, 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := l.Finish(ctx, rec.ID, ledger.Done, ledger.Counts{Stored: 7}); err != nil {
		t.Fatal(err)
	}
	l.Write(ctx, rec.ID, nil, ledger.Counts{Stored: 99}, nil) // too late: the record is frozen
	next, _, err := l.Begin(ctx, c, 0)
	if err != nil || next.ID == rec.ID || next.Resumed != 0 {
		t.Fatalf("a crawl after one done: %+v, %v; want a new one", next, err)
	}
	got, err := l.Crawl(ctx, rec.ID)
	if err != nil || got.State != ledger.Done || got.Counts.Stored != 7 || got.Ended.IsZero() || got.Start != c.Start || got.Source != c.Source {
		t.Errorf("crawl %d after it ended: %+v, %v; want done, 7 stored", rec.ID, got, err)
	}
	list, err := l.Crawls(ctx, 10)
	if err != nil || len(list) != 2 || list[0].ID != next.ID || list[1].ID != rec.ID {
		t.Errorf("crawls %+v, %v: want the two, newest first", list, err)
	}
	if list, _ := l.Crawls(ctx, 1); len(list) != 1 {
		t.Errorf("crawls, one asked: %d", len(list))
	}
	if _, err := l.Crawl(ctx, 9999); !errors.Is(err, ledger.ErrNoCrawl) {
		t.Errorf("a crawl that is not: %v", err)
	}
}

// byID: a crawl is taken up by its ID whatever its key, if it may be.
func byID(t *testing.T, l ledger.Ledger) {
	ctx := t.Context()
	rec, _, err := l.Begin(ctx, ledger.Crawl{Key: "k1", Start: "https://c.example/", Options: `{"max_depth":1}`}, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := l.Begin(ctx, ledger.Crawl{}, rec.ID); !errors.Is(err, ledger.ErrNotResumable) {
		t.Errorf("taking up a crawl that runs: %v", err)
	}
	l.Finish(ctx, rec.ID, ledger.CrawlFailed, ledger.Counts{})
	got, _, err := l.Begin(ctx, ledger.Crawl{Key: "other"}, rec.ID)
	if err != nil || got.ID != rec.ID || got.Start != "https://c.example/" || got.Options != `{"max_depth":1}` {
		t.Errorf("taking up crawl %d by its ID: %+v, %v; want its start and options", rec.ID, got, err)
	}
	// Taken up with options, it keeps them, as it runs with them now.
	l.Finish(ctx, rec.ID, ledger.Interrupted, ledger.Counts{})
	if _, _, err := l.Begin(ctx, ledger.Crawl{Options: `{"max_depth":2}`}, rec.ID); err != nil {
		t.Fatal(err)
	}
	if got, err := l.Crawl(ctx, rec.ID); err != nil || got.Options != `{"max_depth":2}` {
		t.Errorf("crawl %d taken up with new options: %+v, %v", rec.ID, got, err)
	}
	l.Finish(ctx, rec.ID, ledger.Done, ledger.Counts{})
	if _, _, err := l.Begin(ctx, ledger.Crawl{}, rec.ID); !errors.Is(err, ledger.ErrNotResumable) {
		t.Errorf("taking up a crawl done: %v", err)
	}
	if _, _, err := l.Begin(ctx, ledger.Crawl{}, rec.ID+100); !errors.Is(err, ledger.ErrNoCrawl) {
		t.Errorf("taking up a crawl that is not: %v", err)
	}
}

// politeness: the hosts' next turns ahead, and robots.txt while it
// lives, are kept.
func politeness(t *testing.T, l ledger.Ledger) {
	ctx := t.Context()
	rec, _, err := l.Begin(ctx, ledger.Crawl{Key: "k"}, 0)
	if err != nil {
		t.Fatal(err)
	}
	ahead := time.Now().Add(time.Hour).Truncate(time.Millisecond)
	turns := []ledger.Turn{{Host: "a.example", At: ahead}, {Host: "b.example", At: time.Now().Add(-time.Hour)}}
	if err := l.Write(ctx, rec.ID, nil, ledger.Counts{}, turns); err != nil {
		t.Fatal(err)
	}
	// A turn written later but sooner (by a crawl of a shorter delay)
	// does not bring the host's turn forward.
	if err := l.Write(ctx, rec.ID, nil, ledger.Counts{}, []ledger.Turn{{Host: "a.example", At: time.Now().Add(time.Minute)}}); err != nil {
		t.Fatal(err)
	}
	got, err := l.Turns(ctx)
	if err != nil || len(got) != 1 || got[0].Host != "a.example" || !got[0].At.Equal(ahead) {
		t.Errorf("turns %+v, %v: want a.example's, ahead", got, err)
	}
	r := ledger.Robots{Origin: "https://a.example", Status: "parsed", HTTPStatus: 200, Body: []byte("User-agent: *\nDisallow: /x\n"), Until: time.Now().Add(time.Hour)}
	if err := l.PutRobots(ctx, r); err != nil {
		t.Fatal(err)
	}
	if err := l.PutRobots(ctx, ledger.Robots{Origin: "https://old.example", Status: "unavailable", HTTPStatus: 404, Until: time.Now().Add(-time.Second)}); err != nil {
		t.Fatal(err)
	}
	kept, ok, err := l.Robots(ctx, "https://a.example")
	if err != nil || !ok || string(kept.Body) != string(r.Body) || kept.HTTPStatus != 200 || kept.Status != "parsed" {
		t.Errorf("robots.txt kept: %+v, %v, %v", kept, ok, err)
	}
	if _, ok, err := l.Robots(ctx, "https://old.example"); ok || err != nil {
		t.Errorf("robots.txt past its life is kept: %v, %v", ok, err)
	}
	if _, ok, err := l.Robots(ctx, "https://none.example"); ok || err != nil {
		t.Errorf("robots.txt never read is kept: %v, %v", ok, err)
	}
}
