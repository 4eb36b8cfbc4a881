package render

import (
	"bytes"
	"context"
	"os"
	"strconv"
	"time"
)

// watchEvery is how often the browser's renderers are weighed.
const watchEvery = 100 * time.Millisecond

// watch kills, until ctx ends, every renderer of the browser (the
// process whose id is browser) that holds more than max bytes of
// memory: a page that allocates without end (buffers outside the
// JavaScript heap) loses its renderer, and so its tab, not the browser
// nor the machine. Each page has a browser context, and so a renderer,
// of its own. It weighs from /proc, and where there is none (not Linux)
// does nothing.
func (b *Browser) watch(ctx context.Context, browser int, max int64) {
	if _, err := os.Stat("/proc/self/statm"); err != nil {
		return
	}
	page := int64(os.Getpagesize())
	tick := time.NewTicker(watchEvery)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		for _, pid := range renderers(browser) {
			if rss := resident(pid) * page; rss > max {
				if p, err := os.FindProcess(pid); err == nil && p.Kill() == nil {
					b.killed.Add(1)
				}
			}
		}
	}
}

// renderers are the ids of the renderer processes among browser's
// descendants.
func renderers(browser int) []int {
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
		if !descends(parent, pid, browser) {
			continue
		}
		cmd, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
		if err == nil && bytes.Contains(cmd, []byte("--type=renderer")) {
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

// resident is how many pages of memory pid holds, from /proc/pid/statm.
func resident(pid int) int64 {
	statm, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/statm")
	if err != nil {
		return 0
	}
	f := bytes.Fields(statm)
	if len(f) < 2 {
		return 0
	}
	n, _ := strconv.ParseInt(string(f[1]), 10, 64)
	return n
}
