package stash

// Tests of the stash's durability and liveness while Puts write files at
// once: kills at random points, the order of syncs and removals, a batch's
// flush during a write, and waits that end. Each test says what it shows.

import (
	"bufio"
	"context"
	"database/sql"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/heedhq/heed"
	"github.com/heedhq/heed/internal/atomicfile"
	"github.com/heedhq/heed/internal/history"
)

// ---------------------------------------------------------------------
// 1. SIGKILL while many Puts are in flight.
// ---------------------------------------------------------------------

const writerChildEnv = "HEED_STASHTEST_STASH_CHILD"

// writerChild is the child process: 8 writers, each owning its URLs (so
// that the versions of one URL are put in order), plus shared URLs that
// all writers put; sources alternate so that files move. Each Put that
// returns without error is acknowledged on stdout.
func writerChild() {
	dir := os.Getenv(writerChildEnv)
	batch, _ := strconv.Atoi(os.Getenv("HEED_STASHTEST_BATCH"))
	maxWait = 5 * time.Millisecond
	s, err := Open(context.Background(), dir)
	if err != nil {
		fmt.Println("open:", err)
		os.Exit(3)
	}
	s.SetBatch(batch)
	// Every version stays, for the parent to find each one acknowledged.
	s.SetRetention(history.Retention{Versions: 1 << 20, MaxAge: -1})
	var outMu sync.Mutex
	out := bufio.NewWriter(os.Stdout)
	var counter atomic.Int64
	counter.Store(time.Now().UnixMicro()) // later children's versions are larger
	var wg sync.WaitGroup
	for w := range 8 {
		wg.Go(func() {
			r := rand.New(rand.NewPCG(uint64(w), uint64(time.Now().UnixNano())))
			for {
				var u string
				shared := r.IntN(4) == 0
				if shared {
					u = fmt.Sprintf("https://e.com/shared/%d", r.IntN(4))
				} else {
					u = fmt.Sprintf("https://e.com/w%d/%d", w, r.IntN(6))
				}
				v := counter.Add(1)
				src := "docs"
				if os.Getenv("HEED_STASHTEST_MOVES") == "1" && r.IntN(3) == 0 {
					src = "other"
				}
				sn := &heed.Snapshot{Source: src, URL: u, Title: "T",
					Markdown: fmt.Sprintf("body of %s tok%dx %s", u, v, strings.Repeat("word ", r.IntN(2000)))}
				if _, err := s.Put(context.Background(), sn); err == nil && !shared {
					outMu.Lock()
					fmt.Fprintf(out, "ack %s %d %s\n", u, v, sn.Hash)
					out.Flush()
					outMu.Unlock()
				}
				if r.IntN(50) == 0 {
					s.Flush(context.Background())
				}
			}
		})
	}
	wg.Wait()
}

func TestMain(m *testing.M) {
	if dir := os.Getenv("HEED_STASHTEST_SETTLE_CHILD"); dir != "" {
		settleChild(dir)
		os.Exit(0)
	}
	if os.Getenv(writerChildEnv) != "" {
		writerChild()
		os.Exit(0)
	}
	if dir := os.Getenv(moveChildEnv); dir != "" {
		moveChild(dir)
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// checkAgree opens dir and checks that files and index agree: no row
// pending, every row's file holds its URL and its hash, and its full-text
// entry is the file's; every snapshot file has a row; no temporary file.
// It returns each URL's version (tokNx) as stored, and problems found.
func checkAgree(t *testing.T, dir string) (versions map[string]int64, orphans []string) {
	t.Helper()
	before := map[string]string{}
	if raw, err := sql.Open("sqlite", "file:"+filepath.Join(dir, indexFile)); err == nil {
		rows, err := raw.Query(`SELECT url, path, state, hash FROM docs`)
		if err == nil {
			for rows.Next() {
				var u, p, st, h string
				rows.Scan(&u, &p, &st, &h)
				before[u] = fmt.Sprintf("path %s state %s hash %.8s", p, st, h)
			}
			rows.Close()
		}
		raw.Close()
	}
	s, err := Open(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	entries, rows := indexState(t, s)
	versions = map[string]int64{}
	byPath := map[string]string{}
	for _, r := range rows {
		url, path := r.url, r.path
		if r.state != "ok" {
			t.Errorf("%s: row %s after Open", url, r.state)
		}
		byPath[path] = url
		snap, err := readFile(filepath.Join(dir, filepath.FromSlash(path)))
		if err != nil {
			t.Errorf("%s: row ok, its file %s: %v", url, path, err)
			continue
		}
		if snap.URL != url {
			t.Errorf("%s: its file %s holds %s", url, path, snap.URL)
			continue
		}
		if heed.HashOf(snap.Markdown) != r.hash {
			t.Errorf("%s: row hash differs from the file's", url)
		}
		if body, want := entries[r.rowid], tokensOf(t, s, snap.Title, snap.Markdown); body != want {
			t.Errorf("%s: full-text entry is not the file's: fts %.60q, file %s %.60q hash %.8s; before Open: %s", url, body, path, snap.Markdown, heed.HashOf(snap.Markdown), before[url])
		}
		i := strings.Index(snap.Markdown, " tok")
		var v int64
		fmt.Sscanf(snap.Markdown[i+4:], "%dx", &v)
		versions[url] = v
	}
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			if d != nil && d.IsDir() && d.Name() == ".heed" {
				return filepath.SkipDir
			}
			return nil
		}
		if strings.HasPrefix(d.Name(), ".heed-") {
			t.Errorf("temporary file left: %s", p)
			return nil
		}
		rel, _ := filepath.Rel(dir, p)
		rel = filepath.ToSlash(rel)
		if _, ok := byPath[rel]; !ok {
			if sn, err := readFile(p); err == nil {
				rel += " (holds " + sn.URL + fmt.Sprintf(" %.40q", sn.Markdown) + ")"
			}
			orphans = append(orphans, rel)
		}
		return nil
	})
	return versions, orphans
}

// checkHistories checks, after checkAgree, that every page's history is
// whole: its entries numbered without a number twice, no content twice
// in a row (a version written twice), its last entry its file's content,
// the text of each earlier one kept, the index's entries its file's, and
// every content acknowledged (acked, by URL) among them.
func checkHistories(t *testing.T, dir string, acked map[string][]string) {
	t.Helper()
	s, err := Open(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	for _, r := range docRows(t, s) {
		h, err := s.History(ctx, r.url)
		if err != nil {
			t.Errorf("%s: history: %v", r.url, err)
			continue
		}
		if len(h.Unreadable) > 0 {
			t.Errorf("%s: unreadable history entries %q", r.url, h.Unreadable)
		}
		vs := h.Versions
		if len(vs) == 0 || vs[len(vs)-1].Hash != r.hash {
			t.Errorf("%s: the history does not end with the file's content", r.url)
			continue
		}
		has := map[string]bool{}
		for i, v := range vs {
			has[v.Hash] = true
			if i > 0 && (v.N <= vs[i-1].N || v.Hash == vs[i-1].Hash) {
				t.Errorf("%s: entries %d and %d: %+v then %+v", r.url, i, i+1, vs[i-1], v)
			}
			if i < len(vs)-1 {
				if _, err := s.readVersion(ctx, v.Hash); err != nil {
					t.Errorf("%s: version %d's text: %v", r.url, v.N, err)
				}
			}
		}
		indexed, err := s.indexedVersions(ctx, r.url)
		if err != nil || len(indexed) != len(vs) {
			t.Errorf("%s: the index holds %d entries, the file %d (%v)", r.url, len(indexed), len(vs), err)
		}
		for _, a := range acked[r.url] {
			if !has[a] {
				t.Errorf("%s: an acknowledged version (%.12s) is not in its history", r.url, a)
			}
		}
	}
	clear(acked)
}

// TestKillDuringConcurrentPuts kills a child writing with 8 goroutines
// (batched and not) at random points, then checks that files and index
// agree, that no snapshot file is left that no row names, and that every
// acknowledged Put's version (or a later one) is what is stored. Every
// other round also moves pages between sources (every round with
// HEED_STASHTEST_MOVES=1).
func TestKillDuringConcurrentPuts(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns children")
	}
	rounds := 4
	if n, err := strconv.Atoi(os.Getenv("HEED_STASHTEST_ROUNDS")); err == nil {
		rounds = n
	}
	for round := range rounds {
		batches := []int{1, 16}
		if b, err := strconv.Atoi(os.Getenv("HEED_STASHTEST_BATCH_ONLY")); err == nil {
			batches = []int{b}
		}
		for _, batch := range batches {
			dir := t.TempDir()
			acked := map[string]int64{}
			ackedHashes := map[string][]string{}
			// Several kills into one stash, each on top of the last.
			for kill := range 3 {
				cmd := exec.Command(os.Args[0], "-test.run=^$")
				cmd.Env = append(os.Environ(), writerChildEnv+"="+dir, "HEED_STASHTEST_BATCH="+strconv.Itoa(batch))
				if round%2 == 1 {
					cmd.Env = append(cmd.Env, "HEED_STASHTEST_MOVES=1")
				}
				stdout, _ := cmd.StdoutPipe()
				if err := cmd.Start(); err != nil {
					t.Fatal(err)
				}
				var mu sync.Mutex
				done := make(chan struct{})
				go func() {
					defer close(done)
					sc := bufio.NewScanner(stdout)
					for sc.Scan() {
						var u, h string
						var v int64
						if _, err := fmt.Sscanf(sc.Text(), "ack %s %d %s", &u, &v, &h); err == nil {
							mu.Lock()
							acked[u] = v
							ackedHashes[u] = append(ackedHashes[u], h)
							mu.Unlock()
						} else {
							t.Logf("child: %s", sc.Text())
						}
					}
				}()
				time.Sleep(time.Duration(30+rand.IntN(300)) * time.Millisecond)
				cmd.Process.Signal(syscall.SIGKILL)
				<-done
				cmd.Wait()
				versions, orphans := checkAgree(t, dir)
				if len(orphans) > 0 {
					t.Errorf("round %d batch %d kill %d: %d files with no row, e.g. %v", round, batch, kill, len(orphans), orphans[0])
				}
				mu.Lock()
				for u, v := range acked {
					// versions count globally per child; a later child
					// restarts at 1, so only this child's acks count.
					if got := versions[u]; got < v {
						t.Errorf("round %d batch %d: %s acknowledged at version %d, stored %d", round, batch, u, v, got)
					}
				}
				clear(acked)
				checkHistories(t, dir, ackedHashes)
				mu.Unlock()
				if t.Failed() {
					return
				}
			}
		}
	}
}

// ---------------------------------------------------------------------
// 2. Durability ordering: the directory sync is deferred, but removing a
//    moved snapshot's old file is not.
// ---------------------------------------------------------------------

// TestMoveRemovesOldFileBeforeNewDirSynced: a URL whose snapshot moves
// (its source changes) has its old file removed only once the new file's
// directory is synced, so that a power loss cannot lose both.
func TestMoveRemovesOldFileBeforeNewDirSynced(t *testing.T) {
	dir := t.TempDir()
	s := open(t, dir)
	ctx := t.Context()
	s.SetBatch(64)
	const u = "https://e.com/page"
	a := snap(u, "T", "version one")
	a.Source = "alpha"
	if _, err := s.Put(ctx, a); err != nil {
		t.Fatal(err)
	}
	if err := s.Flush(ctx); err != nil {
		t.Fatal(err)
	}
	oldFile := filepath.Join(dir, "alpha", "e.com", "page.md")
	if _, err := os.Stat(oldFile); err != nil {
		t.Fatal(err)
	}
	b := snap(u, "T", "version two")
	b.Source = "beta"
	if _, err := s.Put(ctx, b); err != nil {
		t.Fatal(err)
	}
	newDir := filepath.Join(dir, "beta", "e.com")
	s.mu.Lock()
	unsynced := s.files.Pending()
	s.mu.Unlock()
	if _, err := os.Stat(oldFile); err == nil {
		t.Skip("old file kept")
	}
	if unsynced {
		t.Errorf("Put returned with the old file %s removed while the directory of the only copy, %s, is not synced (s.files); a power loss now loses the page", oldFile, newDir)
	}
}

// TestReindexLeavesDirsUnsynced: Reindex, which marks every row ok, first
// syncs the directories files were renamed into, and leaves none to sync.
func TestReindexLeavesDirsUnsynced(t *testing.T) {
	dir := t.TempDir()
	s, err := Open(t.Context(), dir)
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	s.SetBatch(64)
	if _, err := s.Put(ctx, snap("https://e.com/a/page", "T", "the page")); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Reindex(ctx); err != nil {
		t.Fatal(err)
	}
	var state string
	s.db.QueryRowContext(ctx, `SELECT state FROM docs WHERE url = ?`, "https://e.com/a/page").Scan(&state)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if s.files.Pending() && state == "ok" {
		t.Errorf("after Reindex and Close, the row is %q but its file was never synced", state)
	}
}

// TestSyncOrderStrace runs a move without a batch under strace and
// checks the order of the system calls: the new file's rename, then its
// directory's sync, then the old file's removal.
func TestSyncOrderStrace(t *testing.T) {
	if os.Getenv("HEED_STASHTEST_STRACE_CHILD") != "" {
		dir := os.Getenv("HEED_STASHTEST_STRACE_CHILD")
		s := open(t, dir)
		ctx := context.Background()
		a := snap("https://e.com/page", "T", "one")
		a.Source = "alpha"
		s.Put(ctx, a)
		fmt.Fprintln(os.Stderr, "HEED-MARK")
		os.Stat("/heed-stashtest-mark") // a marker in the trace
		b := snap("https://e.com/page", "T", "two")
		b.Source = "beta"
		s.Put(ctx, b)
		return
	}
	dir := t.TempDir()
	lines, mark := straceSyncs(t, "TestSyncOrderStrace", "HEED_STASHTEST_STRACE_CHILD="+dir)
	newDir := filepath.Join(dir, "beta", "e.com")
	oldFile := filepath.Join(dir, "alpha", "e.com", "page.md")
	renamed, synced, unlinked := -1, -1, -1
	for i := mark; i < len(lines); i++ {
		l := lines[i]
		switch {
		case renamed < 0 && strings.Contains(l, "rename") && strings.Contains(l, filepath.Join(newDir, "page.md")):
			renamed = i
		case synced < 0 && strings.Contains(l, "fsync(") && strings.Contains(l, "<"+newDir+">"):
			synced = i
		case unlinked < 0 && strings.Contains(l, "unlink") && strings.Contains(l, oldFile) && !strings.Contains(l, "ENOENT"):
			unlinked = i
		}
	}
	t.Logf("rename at %d, fsync(new dir) at %d, unlink(old file) at %d", renamed, synced, unlinked)
	if renamed < 0 || unlinked < 0 {
		t.Fatalf("trace incomplete:\n%s", strings.Join(lines[mark:], "\n"))
	}
	if synced < 0 || synced > unlinked {
		t.Errorf("the old file was unlinked (line %d) before the new file's directory was synced (line %d):\n%s", unlinked, synced, strings.Join(lines[mark:], "\n"))
	}
}

// TestBatchSyncStrace runs a batch of new pages, then a change to one of
// them, under strace: on Linux the batch's files are synced by one
// syncfs, not one by one, and before their index entries are settled;
// the changed page's file, which replaces one, is synced before it is
// renamed over the old one.
func TestBatchSyncStrace(t *testing.T) {
	if dir := os.Getenv("HEED_STASHTEST_BATCH_STRACE_CHILD"); dir != "" {
		s := open(t, dir)
		ctx := context.Background()
		s.SetBatch(64)
		for i := range 8 {
			s.Put(ctx, snap(fmt.Sprintf("https://e.com/p%d", i), "T", fmt.Sprintf("page %d", i)))
		}
		s.Flush(ctx)
		os.Stat("/heed-stashtest-mark") // a marker in the trace
		s.Put(ctx, snap("https://e.com/p0", "T", "page 0, changed"))
		s.Flush(ctx)
		s.Close()
		return
	}
	dir := t.TempDir()
	lines, mark := straceSyncs(t, "TestBatchSyncStrace", "HEED_STASHTEST_BATCH_STRACE_CHILD="+dir)
	pages := filepath.Join(dir, "docs", "e.com")
	index := filepath.Join(dir, ".heed")
	syncfs, fileSyncs, lastRename, firstIndexWrite := -1, 0, -1, -1
	for i, l := range lines[:mark] {
		switch {
		case strings.Contains(l, "syncfs("):
			if syncfs >= 0 {
				t.Errorf("a second syncfs for one batch: %s", l)
			}
			syncfs = i
		case strings.Contains(l, "fsync(") && strings.Contains(l, "<"+pages+"/"):
			fileSyncs++
		case strings.Contains(l, "rename") && strings.Contains(l, pages):
			lastRename = i
		case firstIndexWrite < 0 && syncfs >= 0 && strings.Contains(l, "pwrite64(") && strings.Contains(l, index):
			firstIndexWrite = i
		}
	}
	t.Logf("syncfs at %d, %d file syncs, last rename at %d, first index write after the syncfs at %d", syncfs, fileSyncs, lastRename, firstIndexWrite)
	switch {
	case syncfs < 0:
		t.Errorf("no syncfs for a batch of 8 new files:\n%s", strings.Join(lines[:mark], "\n"))
	case fileSyncs > 0:
		t.Errorf("%d of a batch's new files synced one by one", fileSyncs)
	case syncfs < lastRename:
		t.Errorf("a file was renamed in place (line %d) after the batch's sync (line %d)", lastRename, syncfs)
	case firstIndexWrite < 0:
		t.Errorf("the index was not written after the batch's sync")
	}
	// The change: its temporary file is synced, then renamed over p0.md.
	synced, renamed := -1, -1
	for i := mark; i < len(lines); i++ {
		l := lines[i]
		switch {
		case synced < 0 && strings.Contains(l, "fsync(") && strings.Contains(l, "<"+pages+"/"+atomicfile.TempPrefix):
			synced = i
		case renamed < 0 && strings.Contains(l, "rename") && strings.Contains(l, filepath.Join(pages, "p0.md")):
			renamed = i
		}
	}
	if synced < 0 || renamed < 0 || synced > renamed {
		t.Errorf("the changed file was renamed over the old one (line %d) before it was synced (line %d):\n%s", renamed, synced, strings.Join(lines[mark:], "\n"))
	}
}

// straceSyncs runs test in a child process with env added, under strace
// following its file syncs, renames, removals and writes, and returns the
// trace's lines and the line of the child's marker. Without Linux or
// strace, the test is skipped.
// atPath is a folder's descriptor and a name in it, in a trace.
var atPath = regexp.MustCompile(`\d+<([^>]*)>, "([^"]*)"`)

func straceSyncs(t *testing.T, test string, env ...string) (lines []string, mark int) {
	t.Helper()
	if runtime.GOOS != "linux" {
		t.Skip("syncfs is Linux's")
	}
	strace, err := exec.LookPath("strace")
	if err != nil {
		t.Skip("no strace")
	}
	trace := filepath.Join(t.TempDir(), "trace")
	cmd := exec.Command(strace, "-f", "-y", "-o", trace, "-e", "trace=newfstatat,stat,fsync,fdatasync,syncfs,rename,renameat,renameat2,unlink,unlinkat,pwrite64",
		os.Args[0], "-test.run=^"+test+"$")
	cmd.Env = append(os.Environ(), env...)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Skipf("strace: %v\n%s", err, out)
	}
	lines = strings.Split(string(mustRead(t, trace)), "\n")
	for i, l := range lines {
		// The stash's files are named relative to a folder it holds open
		// (renameat(5</stash/x>, "a.md", ...)): write them as paths.
		lines[i] = atPath.ReplaceAllString(l, "$1/$2")
	}
	mark = slices.IndexFunc(lines, func(l string) bool { return strings.Contains(l, "heed-stashtest-mark") })
	if mark < 0 {
		t.Fatalf("no marker in the trace")
	}
	return lines, mark
}

// TestSettleSyncsStrace: a process killed before its batch's sync leaves
// whole files that a crash of the system could still lose. Open settles
// their rows only once it has synced them, and Reindex syncs every file
// before it indexes it (on Linux, by one syncfs).
func TestSettleSyncsStrace(t *testing.T) {
	switch os.Getenv("HEED_STASHTEST_SETTLE_STRACE_CHILD") {
	case "put":
		s := open(t, os.Getenv("HEED_STASHTEST_DIR"))
		s.SetBatch(64)
		for i := range 3 {
			s.Put(context.Background(), snap(fmt.Sprintf("https://e.com/p%d", i), "T", fmt.Sprintf("page %d", i)))
		}
		os.Exit(0) // killed: no flush, no Close
	case "open":
		s := open(t, os.Getenv("HEED_STASHTEST_DIR"))
		os.Stat("/heed-stashtest-mark") // a marker in the trace
		s.Reindex(context.Background())
		s.Close()
		return
	}
	dir := t.TempDir()
	put := exec.Command(os.Args[0], "-test.run=^TestSettleSyncsStrace$")
	put.Env = append(os.Environ(), "HEED_STASHTEST_SETTLE_STRACE_CHILD=put", "HEED_STASHTEST_DIR="+dir)
	if out, err := put.CombinedOutput(); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	lines, mark := straceSyncs(t, "TestSettleSyncsStrace", "HEED_STASHTEST_SETTLE_STRACE_CHILD=open", "HEED_STASHTEST_DIR="+dir)
	pages := filepath.Join(dir, "docs", "e.com")
	for i := range 3 {
		page := filepath.Join(pages, fmt.Sprintf("p%d.md", i))
		if !slices.ContainsFunc(lines[:mark], func(l string) bool { return strings.Contains(l, "fsync(") && strings.Contains(l, "<"+page+">") }) {
			t.Errorf("Open settled p%d without syncing its file:\n%s", i, strings.Join(lines[:mark], "\n"))
		}
	}
	syncfs := slices.IndexFunc(lines[mark:], func(l string) bool { return strings.Contains(l, "syncfs(") })
	write := slices.IndexFunc(lines[mark:], func(l string) bool {
		return strings.Contains(l, "pwrite64(") && strings.Contains(l, filepath.Join(dir, ".heed"))
	})
	if syncfs < 0 || write >= 0 && write < syncfs {
		t.Errorf("Reindex wrote the index (line %d) before it synced the files (line %d):\n%s", write, syncfs, strings.Join(lines[mark:], "\n"))
	}
}

// ---------------------------------------------------------------------
// 3. Liveness.
// ---------------------------------------------------------------------

// TestRemoveStarvedByPuts: Remove (as Close and Reindex) waits for the
// files being written, but Puts that come meanwhile wait for it: with
// writers putting continuously, Remove of another source ends soon.
func TestRemoveStarvedByPuts(t *testing.T) {
	s := open(t, t.TempDir())
	ctx := t.Context()
	s.SetBatch(16)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	var puts atomic.Int64
	for w := range 8 {
		wg.Go(func() {
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				s.Put(ctx, snap(fmt.Sprintf("https://e.com/%d/%d", w, i%50), "T", fmt.Sprintf("body %d %s", i, strings.Repeat("x ", 20000))))
				puts.Add(1)
			}
		})
	}
	time.Sleep(200 * time.Millisecond)
	start := time.Now()
	done := make(chan struct{})
	go func() { s.Remove(ctx, "none"); close(done) }()
	select {
	case <-done:
		t.Logf("Remove waited %v (%d puts meanwhile)", time.Since(start), puts.Load())
	case <-time.After(10 * time.Second):
		t.Errorf("Remove of another source still waiting after 10 s of Puts (%d puts meanwhile): starved", puts.Load())
	}
	close(stop)
	wg.Wait()
	<-done
}

// TestPanicInWriteWedges: a file write that panics (recovered by the
// caller, as a server would) leaves nothing waiting for it: later Puts
// of the URL, Remove and Close go on.
func TestPanicInWriteWedges(t *testing.T) {
	s := open(t, t.TempDir())
	ctx := t.Context()
	orig := writeFile
	writeFile = func(root *os.Root, path string, data []byte, sync bool) error { panic("boom") }
	func() {
		defer func() { recover() }()
		s.Put(ctx, snap("https://e.com/p", "T", "x"))
	}()
	writeFile = orig
	done := make(chan struct{})
	go func() { s.Remove(ctx, "none"); close(done) }()
	select {
	case <-done:
	case <-time.After(2 * time.Second):
		t.Errorf("Remove hangs forever after a Put's write panicked (s.writing keeps the URL)")
		// Let the cleanup's Close not hang the test binary: clear it.
		s.mu.Lock()
		clear(s.writing)
		s.idle.Broadcast()
		s.mu.Unlock()
	}
}

// ---------------------------------------------------------------------
// 4. One URL, several Puts; two URLs, one file.
// ---------------------------------------------------------------------

// ---------------------------------------------------------------------
// 5. A batch's flush settles the row of a Put whose file is being written.
// ---------------------------------------------------------------------

// settleChild: with a batch, Put version one of a URL (it waits in the
// batch); Put version two, whose file write is held; meanwhile Flush (as
// the flush timer or another Put filling the batch does). Then it waits
// to be killed.
func settleChild(dir string) {
	ctx := context.Background()
	s, err := Open(ctx, dir)
	if err != nil {
		fmt.Println("open:", err)
		os.Exit(3)
	}
	s.SetBatch(64)
	const u = "https://e.com/page"
	if _, err := s.Put(ctx, &heed.Snapshot{Source: "docs", URL: u, Title: "One", Markdown: "version one of the page"}); err != nil {
		fmt.Println("put:", err)
		os.Exit(3)
	}
	started, _, _ := holdWritesOf("version two", nil) // never released: the process is killed during the write
	go s.Put(ctx, &heed.Snapshot{Source: "docs", URL: u, Title: "Two", Markdown: "version two of the page"})
	<-started
	if err := s.Flush(ctx); err != nil {
		fmt.Println("flush:", err)
		os.Exit(3)
	}
	fmt.Println("ready")
	select {}
}

// TestFlushSettlesPutInFlight: a batch's flush while a newer version of
// a page waiting in the batch is being written does not settle the
// page's row; killed then, the stash is opened with the row pending, and
// putting the newer version again writes it.
func TestFlushSettlesPutInFlight(t *testing.T) {
	dir := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "HEED_STASHTEST_SETTLE_CHILD="+dir)
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line, _ := bufio.NewReader(stdout).ReadString('\n')
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	if strings.TrimSpace(line) != "ready" {
		t.Fatalf("child: %q", line)
	}
	s := open(t, dir)
	ctx := t.Context()
	const u = "https://e.com/page"
	var state, hash, title string
	s.db.QueryRowContext(ctx, `SELECT state, hash, title FROM docs WHERE url = ?`, u).Scan(&state, &hash, &title)
	got, err := s.Get(ctx, u)
	if err != nil {
		t.Fatal(err)
	}
	if hash != heed.HashOf(got.Markdown) {
		t.Errorf("after the kill and Open: row %s, title %q, hash of %q; the file holds %q (title %q)",
			state, title, map[bool]string{true: "version two", false: "?"}[hash == heed.HashOf("version two of the page")], got.Markdown, got.Title)
	}
	changed, err := s.Put(ctx, &heed.Snapshot{Source: "docs", URL: u, Title: "Two", Markdown: "version two of the page"})
	if err != nil {
		t.Fatal(err)
	}
	got, _ = s.Get(ctx, u)
	if !strings.Contains(got.Markdown, "version two") {
		t.Errorf("putting version two again: changed %v, and the file still holds %q", changed, got.Markdown)
	}
}

// TestRemoveDuringWrite: Remove of a source while a Put of one of its
// pages writes the file: afterwards file and row are both gone (or both
// there).
func TestRemoveDuringWrite(t *testing.T) {
	dir := t.TempDir()
	s := open(t, dir)
	ctx := t.Context()
	started, release := holdWrites(t, "https://e.com/slow")
	put := make(chan error)
	go func() { _, err := s.Put(ctx, snap("https://e.com/slow", "Slow", "the slow page")); put <- err }()
	<-started
	removed := make(chan error)
	go func() { _, err := s.Remove(ctx, "docs"); removed <- err }()
	time.Sleep(50 * time.Millisecond)
	release()
	perr, rerr := <-put, <-removed
	_, statErr := os.Stat(filepath.Join(dir, "docs", "e.com", "slow.md"))
	_, getErr := s.Get(ctx, "https://e.com/slow")
	if (statErr == nil) != (getErr == nil) {
		t.Errorf("put %v, remove %v: file there %v, row there %v", perr, rerr, statErr == nil, getErr == nil)
	}
}

// TestFlushSettlesPutThatFails: as TestFlushSettlesPutInFlight, without a
// crash: the newer version's write fails (a full disk) after a flush; Put
// reports the error, and putting the newer version again writes it.
func TestFlushSettlesPutThatFails(t *testing.T) {
	s := open(t, t.TempDir())
	ctx := t.Context()
	s.SetBatch(64)
	const u = "https://e.com/page"
	if _, err := s.Put(ctx, snap(u, "One", "version one")); err != nil {
		t.Fatal(err)
	}
	started, proceed, restore := holdWritesOf("version two", syscall.ENOSPC)
	defer restore()
	put := make(chan error)
	go func() { _, err := s.Put(ctx, snap(u, "Two", "version two")); put <- err }()
	<-started
	if err := s.Flush(ctx); err != nil { // the flush timer, or another page filling the batch
		t.Fatal(err)
	}
	proceed()
	if err := <-put; err == nil {
		t.Fatal("the failing write reported no error")
	}
	restore()
	var state, title string
	s.db.QueryRowContext(ctx, `SELECT state, title FROM docs WHERE url = ?`, u).Scan(&state, &title)
	got, _ := s.Get(ctx, u)
	changed, err := s.Put(ctx, snap(u, "Two", "version two"))
	got2, _ := s.Get(ctx, u)
	if state == "ok" && !strings.Contains(got2.Markdown, "version two") {
		t.Errorf("after the failed write: row %s, title %q, file %q; putting version two again: changed %v, %v, file %q",
			state, title, got.Markdown, changed, err, got2.Markdown)
	}
}

// TestStress: Puts (shared URLs, moving sources, named snapshots,
// cancelled contexts), Gets, Searches, Touches, Flushes, Removes and
// Reindexes at once with a 1 ms flush timer, then Close: no deadlock, no
// race (-race), and files and index agree afterwards.
func TestStress(t *testing.T) {
	defer func(d time.Duration) { maxWait = d }(maxWait)
	maxWait = time.Millisecond
	for round := range 4 {
		dir := t.TempDir()
		s, err := Open(t.Context(), dir)
		if err != nil {
			t.Fatal(err)
		}
		s.SetBatch(1 + round*5)
		ctx := context.Background()
		withTimeout(t, 60*time.Second, func() {
			var wg sync.WaitGroup
			for w := range 6 {
				wg.Go(func() {
					r := rand.New(rand.NewPCG(uint64(w), uint64(round)))
					for i := range 80 {
						u := fmt.Sprintf("https://e.com/%d", r.IntN(10))
						sn := &heed.Snapshot{Source: []string{"docs", "other"}[r.IntN(2)], URL: u, Title: "T",
							Markdown: fmt.Sprintf("body of %s tok%dx", u, w*1000+i)}
						if r.IntN(5) == 0 {
							sn.Name = "feeds/shared"
						}
						c := ctx
						if r.IntN(9) == 0 {
							cc, cancel := context.WithCancel(ctx)
							cancel()
							c = cc
						}
						s.Put(c, sn)
						s.Get(ctx, u)
						s.Search(ctx, heed.Query{Text: "body"})
						s.Touch(ctx, u, time.Now())
						if r.IntN(20) == 0 {
							s.Flush(ctx)
						}
					}
				})
			}
			wg.Go(func() {
				for range 4 {
					s.Reindex(ctx)
					s.Remove(ctx, "none")
					time.Sleep(3 * time.Millisecond)
				}
			})
			wg.Wait()
		})
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
		checkStressAgree(t, dir)
	}
}

// checkStressAgree: after Open, every row is ok, its file holds its URL
// and its hash, and its full-text entry is the file's.
func checkStressAgree(t *testing.T, dir string) {
	t.Helper()
	s, err := Open(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	entries, rows := indexState(t, s)
	for _, r := range rows {
		sn, err := readFile(filepath.Join(dir, filepath.FromSlash(r.path)))
		switch {
		case r.state != "ok":
			t.Errorf("%s: %s", r.url, r.state)
		case err != nil:
			t.Errorf("%s: %v", r.url, err)
		case sn.URL != r.url:
			t.Errorf("%s: file %s holds %s", r.url, r.path, sn.URL)
		case heed.HashOf(sn.Markdown) != r.hash || tokensOf(t, s, sn.Title, sn.Markdown) != entries[r.rowid]:
			t.Errorf("%s: row or full-text entry is not the file's", r.url)
		}
	}
}

type docRow struct {
	rowid                  int64
	url, path, hash, state string
}

// docRows reads the index's rows, all at once: the index has one
// connection, which a query holds until its rows are read.
func docRows(t *testing.T, s *Stash) []docRow {
	t.Helper()
	rows, err := s.db.Query(`SELECT rowid, url, path, hash, state FROM docs`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var all []docRow
	for rows.Next() {
		var r docRow
		if err := rows.Scan(&r.rowid, &r.url, &r.path, &r.hash, &r.state); err != nil {
			t.Fatal(err)
		}
		all = append(all, r)
	}
	return all
}

// indexState reads the index's rows and full-text entries, and reports
// entries that no row has.
func indexState(t *testing.T, s *Stash) (entries map[int64]string, rows []docRow) {
	t.Helper()
	entries, rows = ftsEntries(t, s), docRows(t, s)
	strayEntries(t, entries, rows)
	return entries, rows
}

// strayEntries reports full-text entries that no row has.
func strayEntries(t *testing.T, entries map[int64]string, rows []docRow) {
	t.Helper()
	has := map[int64]bool{}
	for _, r := range rows {
		has[r.rowid] = true
	}
	for doc, terms := range entries {
		if !has[doc] {
			t.Errorf("full-text entry %d has no row: %.60s", doc, terms)
		}
	}
}

// ftsEntries reads the full-text index's entries, by row: each the
// title's terms and the body's in order, as the index holds them. The
// index keeps no text, only the terms with their places.
func ftsEntries(t *testing.T, s *Stash) map[int64]string {
	t.Helper()
	conn := indexConn(t, s)
	defer conn.Close()
	return vocabEntries(t, conn, "main", "fts")
}

// tokensOf is what the entry of a snapshot is, as ftsEntries reads it:
// the index's own tokenizer turns its title and Markdown into terms, in
// a table of the same kind made for the purpose.
func tokensOf(t *testing.T, s *Stash, title, markdown string) string {
	t.Helper()
	conn := indexConn(t, s)
	defer conn.Close()
	schema := strings.Replace(strings.Replace(ftsSchema, "fts USING", "temp.tokens USING", 1), "INSERT INTO fts(fts, rank)", "INSERT INTO temp.tokens(tokens, rank)", 1)
	for _, q := range []string{`DROP TABLE IF EXISTS temp.tokens`, schema} {
		if _, err := conn.ExecContext(context.Background(), q); err != nil {
			t.Fatal(err)
		}
	}
	title, body := indexed(title, markdown)
	if _, err := conn.ExecContext(context.Background(), `INSERT INTO temp.tokens(rowid, title, body) VALUES (1, ?, ?)`, title, body); err != nil {
		t.Fatal(err)
	}
	return vocabEntries(t, conn, "temp", "tokens")[1]
}

// indexConn is the index's one connection, which temporary tables live on.
func indexConn(t *testing.T, s *Stash) *sql.Conn {
	t.Helper()
	conn, err := s.db.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return conn
}

// vocabEntries reads the entries of the full-text table schema.table, by
// row, through fts5vocab.
func vocabEntries(t *testing.T, conn *sql.Conn, schema, table string) map[int64]string {
	t.Helper()
	ctx := context.Background()
	if _, err := conn.ExecContext(ctx, fmt.Sprintf(`DROP TABLE IF EXISTS temp.vocab; CREATE VIRTUAL TABLE temp.vocab USING fts5vocab(%s, %s, instance)`, schema, table)); err != nil {
		t.Fatal(err)
	}
	rows, err := conn.QueryContext(ctx, `SELECT doc, col, term FROM temp.vocab ORDER BY doc, col DESC, offset`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	terms := map[int64][]string{}
	for rows.Next() {
		var doc int64
		var col, term string
		if err := rows.Scan(&doc, &col, &term); err != nil {
			t.Fatal(err)
		}
		terms[doc] = append(terms[doc], col+":"+term)
	}
	out := map[int64]string{}
	for doc, ts := range terms {
		out[doc] = strings.Join(ts, " ")
	}
	return out
}

// TestRemoveLeavesNoEntries: removing a source takes its pages out of the
// full-text index too, and what stays agrees with the files.
func TestRemoveLeavesNoEntries(t *testing.T) {
	dir := t.TempDir()
	s := open(t, dir)
	ctx := t.Context()
	for i, source := range []string{"keep", "gone", "gone"} {
		sn := snap(fmt.Sprintf("https://e.com/%d", i), "Page", "A page about tides.")
		sn.Source = source
		if _, err := s.Put(ctx, sn); err != nil {
			t.Fatal(err)
		}
	}
	if n, err := s.Remove(ctx, "gone"); err != nil || n != 2 {
		t.Fatalf("Remove: %d, %v", n, err)
	}
	s.Close()
	checkStressAgree(t, dir)
}
