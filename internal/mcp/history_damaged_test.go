package mcp

import (
	"database/sql"
	"fmt"
	"path/filepath"
	"testing"
	"time"
)

// TestStashChangesPastADamagedText: a kept text of the stash's that no
// longer reads back as its hash (a disk's damage, an edit by hand) is
// one page's loss, reported, not the list's. stash_changes compares each
// changed page's versions, and a damaged text fails the whole call with
// an internal error; the cursor cannot go past the page either, so no
// page of the list after it can be read, nor the counts.
func TestStashChangesPastADamagedText(t *testing.T) {
	s := newServer(t, Limits{}, loopback)
	cs := connect(t, s, nil)
	w := openChanger(t, s)
	for i := range 3 {
		u := fmt.Sprintf("https://tides.example/%d", i)
		w.put("tides", u, "Tides", tideText(fmt.Sprintf("noon %d", i)), time.Now().AddDate(0, 0, -30))
		w.put("tides", u, "Tides", tideText(fmt.Sprintf("dusk %d", i)), time.Now())
	}
	w.close()
	db, err := sql.Open("sqlite", filepath.Join(s.svc.StashDir(), ".heed", "versions.db"))
	if err != nil {
		t.Fatal(err)
	}
	// One page's old text, damaged: it inflates to nothing.
	if _, err := db.Exec(`UPDATE texts SET data = x'0300' WHERE hash = (SELECT min(hash) FROM texts)`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	var out ChangesOutput
	text, isErr := call(t, cs, "stash_changes", nil, &out)
	if isErr || out.Changed != 3 || len(out.Pages) != 3 {
		t.Errorf("stash_changes with one kept text damaged: %d changed, %d listed; want the 3, the damaged one's words uncounted and said so:\n%s", out.Changed, len(out.Pages), text)
	}
}
