package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/heedhq/heed/internal/pgtest"
	"github.com/heedhq/heed/internal/team"
	"github.com/heedhq/heed/internal/team/teamtest"
	"github.com/heedhq/heed/internal/testutil"
)

// teamEnv is a team on this machine: a throwaway PostgreSQL cluster, a
// database migrated by heed migrate, a site of many host names on one
// loopback server, and a config file that resolves the names to
// loopback (resolve) and allows it (allow_net), as a user would for
// split DNS.
type teamEnv struct {
	bin, db, cfg string
	site         *teamtest.Site
	pool         *pgxpool.Pool
}

func newTeam(t *testing.T, pages, hosts int) *teamEnv {
	t.Helper()
	if testing.Short() {
		t.Skip("builds the binary and runs PostgreSQL")
	}
	return newTeamOn(t, "127.0.0.1", "127.0.0.1/32", pages, hosts)
}

// newTeamOn is a team whose database and site listen on addr, in the
// network allowNet, beside loopback: the address of a veth pair, for
// workers in a network namespace.
func newTeamOn(t *testing.T, addr, allowNet string, pages, hosts int) *teamEnv {
	t.Helper()
	e := &teamEnv{bin: build(t)}
	var c *pgtest.Cluster
	if addr == "127.0.0.1" {
		c = pgtest.Start(t)
	} else {
		c = pgtest.StartOn(t, addr)
	}
	t.Cleanup(c.Stop)
	e.db = strings.Replace(c.Database(t), "127.0.0.1", addr, 1)
	e.site = teamtest.StartOn(t, addr+":0", pages, hosts, time.Millisecond)
	var conf strings.Builder
	fmt.Fprintf(&conf, "allow_net: [%s]\nresolve:\n", allowNet)
	for _, h := range e.site.Names() {
		fmt.Fprintf(&conf, "  - %s:%s\n", h, addr)
	}
	e.cfg = filepath.Join(t.TempDir(), "config.yaml")
	if err := os.WriteFile(e.cfg, []byte(conf.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := e.command("migrate", "--db", e.db).CombinedOutput(); err != nil {
		t.Fatalf("heed migrate: %v\n%s", err, out)
	}
	pool, err := pgxpool.New(context.Background(), e.db)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	e.pool = pool
	return e
}

func (e *teamEnv) command(args ...string) *exec.Cmd {
	cmd := exec.Command(e.bin, append(args, "--config", e.cfg)...)
	cmd.Env = append(os.Environ(), "HEED_CONFIG=", "HEED_STASH=", "HEED_DB=")
	return cmd
}

// worker starts heed worker; it is stopped with SIGTERM when the test
// ends, and must exit 0 then.
func (e *teamEnv) worker(t *testing.T, args ...string) *exec.Cmd {
	t.Helper()
	return e.start(t, e.command(append([]string{"worker", "--db", e.db}, args...)...))
}

// start starts a worker's command; it is stopped with SIGTERM when the
// test ends, and must exit 0 then.
func (e *teamEnv) start(t *testing.T, cmd *exec.Cmd) *exec.Cmd {
	t.Helper()
	stderr := new(testutil.Buffer)
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if cmd.ProcessState != nil {
			return // killed by the test
		}
		cmd.Process.Signal(syscall.SIGTERM)
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("heed worker after SIGTERM: %v\n%s", err, stderr)
			}
		case <-time.After(time.Minute):
			cmd.Process.Kill()
			t.Errorf("heed worker did not stop within a minute of SIGTERM\n%s", stderr)
		}
	})
	return cmd
}

// crawl queues a crawl of the whole site with heed crawl --db --detach.
func (e *teamEnv) crawl(t *testing.T, delay time.Duration) int64 {
	t.Helper()
	args := []string{"crawl", e.site.PageURL(0), "--db", e.db, "--detach", "--json", "--name", "team",
		"--whole-site", "--max-pages", fmt.Sprint(2 * e.site.N), "--max-depth", "30", "--deadline", "30m", "--delay", delay.String()}
	for _, h := range e.site.HostPorts() {
		args = append(args, "--allow-host", h)
	}
	out, err := e.command(args...).Output()
	if err != nil {
		t.Fatalf("heed crawl --db --detach: %v\n%s", err, out)
	}
	var queued struct {
		Event string
		Crawl int64
	}
	if err := json.Unmarshal(out, &queued); err != nil || queued.Event != "queued" || queued.Crawl == 0 {
		t.Fatalf("heed crawl --detach printed %q (%v)", out, err)
	}
	return queued.Crawl
}

// progress is where the crawl stands.
func (e *teamEnv) progress(t *testing.T, id int64) *team.Progress {
	t.Helper()
	p, err := team.CrawlProgress(context.Background(), e.pool, id)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// wait waits for the crawl to be done, at most limit.
func (e *teamEnv) wait(t *testing.T, id int64, limit time.Duration) *team.Progress {
	t.Helper()
	end := time.Now().Add(limit)
	for {
		p := e.progress(t, id)
		if p.Done {
			return p
		}
		if time.Now().After(end) {
			t.Fatalf("the crawl is not done after %v: %+v", limit, p)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// check checks what the site saw: for every host, requests one at a time
// and at least delay apart; every page requested once (twice at most
// for allowed pages), robots.txt once per host, no disallowed page; and
// every page stored once.
func (e *teamEnv) check(t *testing.T, id int64, delay time.Duration, allowedTwice int) {
	t.Helper()
	p := e.progress(t, id)
	if p.Stored != e.site.N || len(p.Failed) > 0 {
		t.Errorf("stored %d of %d; skipped %v, failed %v", p.Stored, e.site.N, p.Skipped, p.Failed)
	}
	var n int
	if err := e.pool.QueryRow(context.Background(), `SELECT count(*) FROM heed_snapshot WHERE source = 'team'`).Scan(&n); err != nil || n != e.site.N {
		t.Errorf("%d snapshots (%v), want %d", n, err, e.site.N)
	}
	c := e.site.Checked()
	if c.MinGap < delay {
		t.Errorf("least gap between two requests to a host %v (at %s), want at least %v", c.MinGap, c.MinGapAt, delay)
	}
	if c.MaxInFlight > 1 {
		t.Errorf("%d requests to one host in flight at once", c.MaxInFlight)
	}
	if len(c.Twice) > allowedTwice || c.Pages != e.site.N || c.Private > 0 {
		t.Errorf("pages requested %d of %d; %d twice (at most %d): %v; disallowed requested %d", c.Pages, e.site.N, len(c.Twice), allowedTwice, c.Twice, c.Private)
	}
	for _, h := range e.site.Names() {
		if c.Robots[h] != 1 {
			t.Errorf("robots.txt of %s requested %d times, want once", h, c.Robots[h])
		}
	}
}

// Four heed worker processes crawl 20,000 pages on 50 host names (one
// loopback site, the names resolved by the config's resolve setting) at a
// 100 ms delay: per host, one request at a time and at least 100 ms from
// the end of one to the start of the next, whichever worker asks; each
// page requested once and stored once; robots.txt once per host, and no
// disallowed page asked for. While the workers write, another process's
// heed search --db and an MCP client of heed mcp --db find their pages,
// ranked, with snippets; and the MCP server's own requests to the hosts
// take their turns in the same schedule.
func TestTeamPoliteness(t *testing.T) {
	e := newTeam(t, 20_000, 50)
	for range 4 {
		e.worker(t, "--hosts", "16", "--slice", "5s")
	}
	const delay = 100 * time.Millisecond
	began := time.Now()
	id := e.crawl(t, delay)

	// Midway: the team's stash, searched from other processes.
	for e.progress(t, id).Stored < 3000 {
		time.Sleep(200 * time.Millisecond)
	}
	out, err := e.command("search", "--db", e.db, teamtest.Words(7)).CombinedOutput()
	if err != nil || !strings.Contains(string(out), e.site.PageURL(7)) {
		t.Errorf("heed search --db while the workers write: %v\n%s", err, out)
	}
	cs := e.mcp(t)
	var found struct {
		Hits []struct {
			URL, Snippet string
		}
	}
	if text := callTool(t, cs, "stash_search", map[string]any{"query": teamtest.Words(12)}, &found); len(found.Hits) != 1 ||
		found.Hits[0].URL != e.site.PageURL(12) || !strings.Contains(found.Hits[0].Snippet, teamtest.Words(12)) {
		t.Errorf("stash_search of heed mcp --db while the workers write: %s", text)
	}
	// web_fetch takes the host's turn from the team's schedule: the gaps
	// checked below count its requests too.
	for h := range 3 {
		host := teamtest.Host(h)
		var page struct{ Title string }
		if text := callTool(t, cs, "web_fetch", map[string]any{"url": "http://" + host + ":" + e.site.Port() + "/about"}, &page); page.Title != "About "+host {
			t.Errorf("web_fetch of heed mcp --db: %s", text)
		}
	}

	p := e.wait(t, id, 5*time.Minute)
	took := time.Since(began)
	// The ceiling is hosts ÷ delay: 500 pages a second.
	t.Logf("%d pages stored in %v: %.0f a second; skipped %v", p.Stored, took.Round(time.Millisecond), float64(p.Stored)/took.Seconds(), p.Skipped)
	e.check(t, id, delay, 0)
}

// mcp starts heed mcp --db as an MCP client does.
func (e *teamEnv) mcp(t *testing.T) *sdk.ClientSession {
	t.Helper()
	cmd := e.command("mcp", "--db", e.db, "--delay", "100ms")
	stderr := new(testutil.Buffer)
	cmd.Stderr = stderr
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "test-agent", Version: "0"}, nil).Connect(t.Context(), &sdk.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("connect: %v\n%s", err, stderr)
	}
	t.Cleanup(func() {
		if err := cs.Close(); err != nil {
			t.Errorf("heed mcp --db did not end cleanly: %v\n%s", err, stderr)
		}
	})
	return cs
}

// callTool calls a tool and decodes its structured result into out; it
// returns the result's text, for messages.
func callTool(t *testing.T, cs *sdk.ClientSession, name string, args map[string]any, out any) string {
	t.Helper()
	res, err := cs.CallTool(t.Context(), &sdk.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	var text strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*sdk.TextContent); ok {
			text.WriteString(tc.Text)
		}
	}
	if res.StructuredContent != nil {
		b, _ := json.Marshal(res.StructuredContent)
		json.Unmarshal(b, out)
	}
	return text.String()
}

// kill -9 of one of four workers mid-crawl: every page is stored exactly
// once; pages requested twice are at most the killed worker's hosts in
// flight; no host is asked sooner than its delay, though the killed
// worker's hosts are taken over by others; and the crawl is done within
// the lease, River's rescue of the dead worker's jobs, and its rescuer's
// round (30 s).
func TestTeamKilledWorker(t *testing.T) {
	e := newTeam(t, 3000, 10)
	const hosts = 3 // so that each worker holds some of the 10
	var workers []*exec.Cmd
	for range 4 {
		workers = append(workers, e.worker(t, "--hosts", fmt.Sprint(hosts), "--slice", "2s", "--lease", "3s", "--rescue-after", "16s"))
	}
	const delay = 20 * time.Millisecond
	id := e.crawl(t, delay)
	for e.progress(t, id).Stored < 800 {
		time.Sleep(20 * time.Millisecond)
	}
	// The worker that holds the most hosts is killed.
	victim, _, held := e.busiest(t, workers)
	if err := victim.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	victim.Wait()
	killed := time.Now()
	p := e.wait(t, id, 3*time.Minute)
	t.Logf("the killed worker held %d hosts; the crawl was done %v after the kill; %d stored", held, time.Since(killed).Round(time.Millisecond), p.Stored)
	if took := time.Since(killed); took > 3*time.Second+16*time.Second+30*time.Second+15*time.Second {
		t.Errorf("done %v after the kill: more than the lease, the rescue and its round", took)
	}
	e.check(t, id, delay, hosts)
}

// netns is a network namespace joined to this one by a veth pair, as a
// second machine on the team's network: this side's address is host,
// the namespace's ns.
type netns struct {
	name, link, host, ns string
}

// newNetns makes a network namespace, or skips the test (fails it with
// HEED_NETNS=required) where it cannot: without root or ip(8).
func newNetns(t *testing.T) *netns {
	t.Helper()
	ip, err := exec.LookPath("ip")
	if err == nil && os.Geteuid() != 0 {
		err = fmt.Errorf("not root")
	}
	if err != nil {
		if os.Getenv("HEED_NETNS") == "required" {
			t.Fatalf("a network namespace is needed: %v", err)
		}
		t.Skipf("no network namespace (needs root and ip(8)): %v", err)
	}
	pid := os.Getpid()
	n := &netns{name: fmt.Sprintf("heed%d", pid), link: fmt.Sprintf("hv%d", pid)}
	sub := pid % 16000
	n.host = fmt.Sprintf("10.213.%d.%d", sub/64, sub%64*4+1)
	n.ns = fmt.Sprintf("10.213.%d.%d", sub/64, sub%64*4+2)
	run := func(args ...string) {
		t.Helper()
		if out, err := exec.Command(ip, args...).CombinedOutput(); err != nil {
			t.Fatalf("ip %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	t.Cleanup(func() {
		exec.Command(ip, "link", "del", n.link).Run()
		exec.Command(ip, "netns", "del", n.name).Run()
	})
	run("netns", "add", n.name)
	run("link", "add", n.link, "type", "veth", "peer", "name", "nv0", "netns", n.name)
	run("addr", "add", n.host+"/30", "dev", n.link)
	run("link", "set", n.link, "up")
	run("-n", n.name, "addr", "add", n.ns+"/30", "dev", "nv0")
	run("-n", n.name, "link", "set", "nv0", "up")
	run("-n", n.name, "link", "set", "lo", "up")
	return n
}

// set sets the link up or down: down, the namespace is cut off.
func (n *netns) set(t *testing.T, state string) {
	t.Helper()
	if out, err := exec.Command("ip", "link", "set", n.link, state).CombinedOutput(); err != nil {
		t.Fatalf("ip link set %s %s: %v\n%s", n.link, state, err, out)
	}
}

// Two workers on this machine and two on a second one (a network
// namespace reaching PostgreSQL and the site over a veth pair); the
// second machine's link is cut for longer than the lease, then restored:
// no host is asked sooner than its delay or twice at once, and no URL is
// lost.
func TestTeamLinkCut(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary and runs PostgreSQL")
	}
	ns := newNetns(t)
	e := newTeamOn(t, ns.host, ns.host+"/30", 3000, 10)

	const lease = 3 * time.Second
	flags := []string{"--hosts", "3", "--slice", "2s", "--lease", lease.String(), "--rescue-after", "16s"}
	for range 2 {
		e.worker(t, flags...)
	}
	var far []*exec.Cmd
	for range 2 {
		far = append(far, e.workerIn(t, ns.name, flags...))
	}
	const delay = 20 * time.Millisecond
	id := e.crawl(t, delay)
	for e.progress(t, id).Stored < 600 {
		time.Sleep(20 * time.Millisecond)
	}
	var held int
	for _, w := range far {
		var n int
		if err := e.pool.QueryRow(context.Background(), `SELECT count(*) FROM heed_host WHERE lease_owner LIKE $1`, fmt.Sprintf("%%/%d/%%", w.Process.Pid)).Scan(&n); err != nil {
			t.Fatal(err)
		}
		held += n
	}
	ns.set(t, "down")
	time.Sleep(lease + 2*time.Second)
	ns.set(t, "up")
	p := e.wait(t, id, 3*time.Minute)
	t.Logf("the second machine held %d hosts when its link was cut; %d stored", held, p.Stored)
	if held == 0 {
		t.Error("the second machine's workers held no host when the link was cut: the cut tested nothing")
	}
	e.check(t, id, delay, held)
}

// workerIn starts heed worker in the network namespace; it is stopped
// with SIGTERM when the test ends, and must exit 0 then.
func (e *teamEnv) workerIn(t *testing.T, ns string, args ...string) *exec.Cmd {
	t.Helper()
	cmd := e.command(append([]string{"worker", "--db", e.db}, args...)...)
	cmd.Args = append([]string{"ip", "netns", "exec", ns}, cmd.Args...)
	cmd.Path, _ = exec.LookPath("ip")
	return e.start(t, cmd)
}

// SIGTERM to a worker mid-crawl: it finishes the pages it is on, lets
// its hosts go and exits 0; the other worker takes its hosts at once,
// not after their leases (a minute here) run out; no page is asked
// twice.
func TestTeamWorkerStops(t *testing.T) {
	e := newTeam(t, 2000, 10)
	// One host asks for a Crawl-delay longer than the crawl's delay: its
	// gaps keep it, whichever worker process asks, before the stop and
	// after.
	slow := teamtest.Host(9)
	e.site.Robots = func(host string) string {
		if host == slow {
			return "User-agent: *\nCrawl-delay: 0.06\nDisallow: /private/\n"
		}
		return "User-agent: *\nDisallow: /private/\n"
	}
	flags := []string{"--hosts", "5", "--slice", "30s", "--lease", "1m"}
	workers := []*exec.Cmd{e.worker(t, flags...), e.worker(t, flags...)}
	const delay = 20 * time.Millisecond
	id := e.crawl(t, delay)
	for e.progress(t, id).Stored < 300 {
		time.Sleep(20 * time.Millisecond)
	}
	victim, owner, held := e.busiest(t, workers)
	victim.Process.Signal(syscall.SIGTERM)
	done := make(chan error, 1)
	go func() { done <- victim.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("heed worker after SIGTERM: %v", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("heed worker did not stop within 30 s of SIGTERM")
	}
	var still int
	if err := e.pool.QueryRow(context.Background(), `SELECT count(*) FROM heed_host WHERE lease_owner LIKE $1`, owner+"/%").Scan(&still); err != nil || still != 0 {
		t.Errorf("the stopped worker still holds %d hosts (%v)", still, err)
	}
	stopped := time.Now()
	p := e.wait(t, id, 2*time.Minute)
	t.Logf("the stopped worker held %d hosts; the crawl was done %v after", held, time.Since(stopped).Round(time.Millisecond))
	if took := time.Since(stopped); took > 45*time.Second {
		t.Errorf("done %v after the stop: its hosts waited for their leases", took)
	}
	if p.Stored != e.site.N {
		t.Errorf("stored %d of %d", p.Stored, e.site.N)
	}
	e.check(t, id, delay, 0)
	var last time.Time
	gap, n := time.Hour, 0
	for _, a := range e.site.Log() {
		if host, _, _ := strings.Cut(a.Host, ":"); host != slow {
			continue
		}
		if n++; !last.IsZero() {
			gap = min(gap, a.At.Sub(last))
		}
		last = a.End
	}
	if n < 100 || gap < 60*time.Millisecond {
		t.Errorf("%s (Crawl-delay: 0.06): %d requests, least gap %v", slow, n, gap)
	}
}

// busiest is the worker that holds the most hosts' leases, its owner
// name and how many it holds.
func (e *teamEnv) busiest(t *testing.T, workers []*exec.Cmd) (*exec.Cmd, string, int) {
	t.Helper()
	var owner string
	var held int
	// An owner is a worker's name and its job run's: the worker's is
	// all but the last part.
	if err := e.pool.QueryRow(context.Background(), `
		SELECT regexp_replace(lease_owner, '/[^/]*$', ''), count(*) FROM heed_host
		WHERE lease_owner IS NOT NULL GROUP BY 1 ORDER BY 2 DESC LIMIT 1`).Scan(&owner, &held); err != nil {
		t.Fatal(err)
	}
	for _, w := range workers {
		if strings.Contains(owner, fmt.Sprintf("/%d/", w.Process.Pid)) {
			return w, owner, held
		}
	}
	t.Fatalf("no worker holds %s's hosts", owner)
	return nil, "", 0
}

// TestTeamResumesAfterEveryWorkerDies: a team's crawl of 1,200 pages on
// 4 hosts whose every worker is killed (SIGKILL) at about half goes on
// when the same worker command runs again: every page is stored once,
// robots.txt asked once per host in its lifetime, and no page asked
// again but those in flight at the kill (one a host at most).
func TestTeamResumesAfterEveryWorkerDies(t *testing.T) {
	e := newTeam(t, 1200, 4)
	args := []string{"--hosts", "4", "--slice", "2s", "--lease", "3s", "--rescue-after", "8s"}
	first := []*exec.Cmd{e.worker(t, args...), e.worker(t, args...)}
	const delay = 5 * time.Millisecond
	id := e.crawl(t, delay)
	for e.progress(t, id).Stored < e.site.N/2 {
		time.Sleep(10 * time.Millisecond)
	}
	for _, w := range first {
		w.Process.Kill()
		w.Wait()
	}
	at := e.progress(t, id)
	if at.State != "running" || at.Stored >= e.site.N {
		t.Fatalf("at the kill: %+v; want a crawl half done", at)
	}
	e.worker(t, args...)
	e.worker(t, args...)
	p := e.wait(t, id, 3*time.Minute)
	t.Logf("killed at %d stored; done with %d stored, state %s", at.Stored, p.Stored, p.State)
	if p.State != "done" {
		t.Errorf("the crawl after its workers came back: %s", p.State)
	}
	e.check(t, id, delay, 4)
}
