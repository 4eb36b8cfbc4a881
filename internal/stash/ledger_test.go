package stash

import (
	"context"
	"database/sql"
	"path/filepath"
	"testing"

	"github.com/heedhq/heed/internal/ledger"
	"github.com/heedhq/heed/internal/ledger/ledgertest"
)

func TestLedger(t *testing.T) {
	ledgertest.Run(t, func(t *testing.T) ledger.Ledger {
		s, err := Open(t.Context(), t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		return s
	})
}

// TestLedgerAfterADeath: a crawl left running by a process that died is
// interrupted, to a reader once no process writes the stash, and to the
// next writer, which takes it up; a reader while the writer runs it sees
// it running.
func TestLedgerAfterADeath(t *testing.T) {
	dir := t.TempDir()
	w, err := Open(t.Context(), dir)
	if err != nil {
		t.Fatal(err)
	}
	rec, _, err := w.Begin(t.Context(), ledger.Crawl{Key: "k", Start: "https://a.example/"}, 0)
	if err != nil {
		t.Fatal(err)
	}
	r, err := OpenRead(t.Context(), dir)
	if err != nil {
		t.Fatal(err)
	}
	if c, err := r.Crawl(t.Context(), rec.ID); err != nil || c.State != ledger.Running {
		t.Errorf("to a reader while it runs: %+v, %v", c, err)
	}
	r.Close()
	w.Close() // the process is gone; the row still says running
	r, err = OpenRead(t.Context(), dir)
	if err != nil {
		t.Fatal(err)
	}
	if list, err := r.Crawls(t.Context(), 5); err != nil || len(list) != 1 || list[0].State != ledger.Interrupted {
		t.Errorf("to a reader after the writer died: %+v, %v", list, err)
	}
	r.Close()
	w, err = Open(t.Context(), dir)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	got, _, err := w.Begin(t.Context(), ledger.Crawl{Key: "k"}, 0)
	if err != nil || got.ID != rec.ID || got.Resumed != 1 {
		t.Errorf("the next writer's crawl of the key: %+v, %v; want crawl %d taken up", got, err, rec.ID)
	}
}

// TestLedgerReadOnly: the crawls' ledger is read, as the index is, from
// a stash on a read-only file system (heed status on a mounted copy).
func TestLedgerReadOnly(t *testing.T) {
	dir, remount := smallDisk(t, 4<<20)
	w, err := Open(t.Context(), dir)
	if err != nil {
		t.Fatal(err)
	}
	rec, _, err := w.Begin(t.Context(), ledger.Crawl{Key: "k", Start: "https://a.example/"}, 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Finish(t.Context(), rec.ID, ledger.Done, ledger.Counts{Stored: 3}); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	remount("ro")
	r, err := OpenRead(t.Context(), dir)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if list, err := r.Crawls(t.Context(), 5); err != nil || len(list) != 1 || list[0].Counts.Stored != 3 {
		t.Errorf("the crawls on a read-only file system: %+v, %v", list, err)
	}
	if c, err := r.Crawl(t.Context(), rec.ID); err != nil || c.State != ledger.Done {
		t.Errorf("crawl %d on a read-only file system: %+v, %v", rec.ID, c, err)
	}
}

// TestLedgerAfterACancelledCall: a call whose context was cancelled
// (an agent's crawl called off at once) fails alone; the ledger it
// would have opened opens for the next, in a process that runs on.
func TestLedgerAfterACancelledCall(t *testing.T) {
	s, err := Open(t.Context(), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	s.Begin(ctx, ledger.Crawl{Key: "k", Start: "https://a.example/"}, 0)
	if _, _, err := s.Begin(t.Context(), ledger.Crawl{Key: "k", Start: "https://a.example/"}, 0); err != nil {
		t.Errorf("a crawl after one called off: %v", err)
	}
}

// TestLedgerAfterAFailedFinish: a crawl whose end could not be recorded
// (a full disk) is not left running in the process that ran it (heed
// mcp runs on): it is interrupted, to its list and to the next crawl of
// its key, which takes it up.
func TestLedgerAfterAFailedFinish(t *testing.T) {
	dir := t.TempDir()
	s, err := Open(t.Context(), dir)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	rec, _, err := s.Begin(t.Context(), ledger.Crawl{Key: "k", Start: "https://a.example/"}, 0)
	if err != nil {
		t.Fatal(err)
	}
	// The ledger refuses the crawl's end, as a full disk does.
	db, err := sql.Open("sqlite", filepath.Join(dir, ledgerFile)+"?_pragma=busy_timeout(5000)")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(`CREATE TRIGGER full BEFORE UPDATE OF state ON crawls BEGIN SELECT RAISE(ABORT, 'database or disk is full'); END`); err != nil {
		t.Fatal(err)
	}
	if err := s.Finish(t.Context(), rec.ID, ledger.Interrupted, ledger.Counts{Stored: 1}); err == nil {
		t.Fatal("the ledger took the crawl's end")
	}
	if _, err := db.Exec(`DROP TRIGGER full`); err != nil {
		t.Fatal(err)
	}
	if c, err := s.Crawl(t.Context(), rec.ID); err != nil || c.State != ledger.Interrupted {
		t.Errorf("crawl %d after its end failed to be recorded: %+v, %v; want interrupted", rec.ID, c, err)
	}
	got, _, err := s.Begin(t.Context(), ledger.Crawl{Key: "k"}, 0)
	if err != nil || got.ID != rec.ID {
		t.Errorf("the next crawl of its key: %+v, %v; want crawl %d taken up", got, err, rec.ID)
	}
}
