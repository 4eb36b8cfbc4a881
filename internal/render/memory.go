package render

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strconv"
	"time"
)

// watchEvery is how often the browser's processes are weighed while a
// page renders.
const watchEvery = 100 * time.Millisecond

// watch weighs the browser's processes (the process whose id is browser,
// and its descendants) while pages render, until ctx ends, and stops
// those that hold too much memory:
//
//   - a renderer past max bytes: a page that allocates without end
//     (buffers outside the JavaScript heap too) loses its renderer, and
//     so its tab, not the browser. Each page has a browser context, and so
//     a renderer, of its own.
//   - the browser, when all its processes together hold more than a
//     renderer's max for each tab and two more (what a page makes the
//     browser's own process hold: blobs, its network's buffers): the
//     pages rendering fail, and the next page starts a new browser.
//
// It weighs from /proc, and where there is none (not Linux) does nothing.
func (b *Browser) watch(ctx context.Context, browser int, max int64) {
	if _, err := os.Stat("/proc/self/status"); err != nil {
		return
	}
	total := max * int64(b.cfg.Tabs+2)
	tick := time.NewTicker(watchEvery)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		if len(b.tabs) == 0 {
			continue // no page renders: nothing grows
		}
		all := resident(browser)
		for _, pid := range descendants(browser) {
			// The process is held (a pidfd, on Linux) before it is
			// weighed: a renderer that exits meanwhile cannot have its
			// id taken by another process that is then killed.
			p, err := os.FindProcess(pid)
			if err != nil {
				continue
			}
			rss := resident(pid)
			all += rss
			if rss > max && isRenderer(pid) && p.Kill() == nil {
				b.killed.Add(1)
				all -= rss
			}
			p.Release()
		}
		if all > total && kill(browser) {
			b.browserKilled.Add(1)
		}
	}
}

func kill(pid int) bool {
	p, err := os.FindProcess(pid)
	if err != nil {
		return false
	}
	defer p.Release()
	return p.Kill() == nil
}

// isRenderer reports whether pid is one of the browser's renderers.
func isRenderer(pid int) bool {
	cmd, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
	return err == nil && bytes.Contains(cmd, []byte("--type=renderer"))
}

// descendants are the ids of root's descendants: its children, as each
// of its threads lists them, and theirs, or, where /proc lists no
// children, the processes whose parents lead to root.
func descendants(root int) []int {
	if _, err := os.Stat("/proc/" + strconv.Itoa(root) + "/task"); err != nil {
		return nil
	}
	if lists, _ := filepath.Glob("/proc/" + strconv.Itoa(root) + "/task/*/children"); len(lists) == 0 {
		return scanDescendants(root)
	}
	var out []int
	seen := map[int]bool{root: true}
	queue := []int{root}
	for len(queue) > 0 && len(out) < 4096 {
		pid := queue[0]
		queue = queue[1:]
		lists, _ := filepath.Glob("/proc/" + strconv.Itoa(pid) + "/task/*/children")
		for _, l := range lists {
			b, err := os.ReadFile(l)
			if err != nil {
				continue
			}
			for _, f := range bytes.Fields(b) {
				child, err := strconv.Atoi(string(f))
				if err != nil || seen[child] {
					continue
				}
				seen[child] = true
				out = append(out, child)
				queue = append(queue, child)
			}
		}
	}
	return out
}

// scanDescendants finds root's descendants from every process's parent.
func scanDescendants(root int) []int {
	dir, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	parent := map[int]int{}
	for _, e := range dir {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if pp := ppid(pid); pp > 0 {
			parent[pid] = pp
		}
	}
	var out []int
	for pid := range parent {
		if descends(parent, pid, root) {
			out = append(out, pid)
		}
	}
	return out
}

// descends reports whether pid is a descendant of root.
func descends(parent map[int]int, pid, root int) bool {
	for range 64 { // a tree deeper than a browser's is not its
		pp, ok := parent[pid]
		if !ok {
			return false
		}
		if pp == root {
			return true
		}
		pid = pp
	}
	return false
}

// ppid is the parent of pid, from /proc/pid/stat, or 0.
func ppid(pid int) int {
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0
	}
	// pid (comm) state ppid ...: comm may hold spaces and parentheses.
	i := bytes.LastIndexByte(stat, ')')
	if i < 0 {
		return 0
	}
	f := bytes.Fields(stat[i+1:])
	if len(f) < 2 {
		return 0
	}
	n, _ := strconv.Atoi(string(f[1]))
	return n
}

// resident is how many bytes of memory pid holds of its own, from
// /proc/pid/status: resident, anonymous or shared memory (a page's
// buffers may be either), but not pages of files (the libraries every
// process of a browser maps would else be counted once for each).
func resident(pid int) int64 {
	status, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return 0
	}
	var n int64
	for line := range bytes.SplitSeq(status, []byte("\n")) {
		name, value, ok := bytes.Cut(line, []byte(":"))
		if !ok || !bytes.Equal(name, []byte("RssAnon")) && !bytes.Equal(name, []byte("RssShmem")) {
			continue
		}
		kb, _ := strconv.ParseInt(string(bytes.TrimSuffix(bytes.TrimSpace(value), []byte(" kB"))), 10, 64)
		n += kb << 10
	}
	return n
}
