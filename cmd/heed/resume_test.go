package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// manual is a loopback site of 1 + 20×50 pages, without validators,
// that logs every request: the start page links to 20 chapters, each
// chapter to its 50 sections.
type manual struct {
	*httptest.Server
	mu   sync.Mutex
	hits map[string]int
}

const manualPages = 1 + 20 + 20*50

func newManual(t *testing.T) *manual {
	m := &manual{hits: map[string]int{}}
	m.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		m.mu.Lock()
		m.hits[r.URL.Path]++
		m.mu.Unlock()
		if r.URL.Path == "/robots.txt" {
			fmt.Fprint(w, "User-agent: *\nDisallow: /private/\n")
			return
		}
		var ch, sec int
		var links []string
		switch {
		case r.URL.Path == "/":
			for i := range 20 {
				links = append(links, fmt.Sprintf("/c%d/", i))
			}
		case strings.Count(r.URL.Path, "/") == 2 && strings.HasSuffix(r.URL.Path, "/"):
			if _, err := fmt.Sscanf(r.URL.Path, "/c%d/", &ch); err != nil {
				http.NotFound(w, r)
				return
			}
			for j := range 50 {
				links = append(links, fmt.Sprintf("/c%d/s%d", ch, j))
			}
		default:
			if _, err := fmt.Sscanf(r.URL.Path, "/c%d/s%d", &ch, &sec); err != nil {
				http.NotFound(w, r)
				return
			}
		}
		fmt.Fprintf(w, "<html><head><title>Manual %s</title></head><body><main><h1>Manual %s</h1><p>This is the part %s of the manual, with words enough to be content.</p>", r.URL.Path, r.URL.Path, r.URL.Path)
		for _, l := range links {
			fmt.Fprintf(w, `<p><a href="%s">%s</a></p>`, l, l)
		}
		fmt.Fprint(w, "</main></body></html>")
	}))
	t.Cleanup(m.Close)
	return m
}

var manualPath = regexp.MustCompile(`^/(c\d+/(s\d+)?)?$`)

// pages are the requests for the manual's pages, twice how many of them
// were asked more than once, and others the requests for what else a
// crawl reads of a site (robots.txt, /sitemap.xml, /llms.txt), by path.
func (m *manual) pages() (pages, twice int, others map[string]int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	others = map[string]int{}
	for p, n := range m.hits {
		if !manualPath.MatchString(p) {
			others[p] += n
			continue
		}
		pages += n
		if n > 1 {
			twice++
		}
	}
	return pages, twice, others
}

// maxInFlight bounds the requests a crawl has made and not recorded
// as ended: the pages it holds fetched and not stored (a batch), the
// requests and extractions under way, and the ledger's last write, with
// room to spare on a busy machine; half the requests of the test's
// first run.
const maxInFlight = 256

var resumedLine = regexp.MustCompile(`heed: resuming crawl (\d+) \((\d+) of (\d+) URLs ended, (\d+) queued\)`)

// TestCrawlResumes: a crawl of a 1,021-page manual stopped at about half
// (kill -9, then Ctrl-C) is resumed by the same command: it says what it
// resumes, every page is stored once, robots.txt is asked once in its
// lifetime, and the requests of the runs together exceed the pages by no
// more than what was in flight when it stopped (the requests made that
// had not ended).
func TestCrawlResumes(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := build(t)
	for _, stop := range []struct {
		name string
		sig  syscall.Signal
	}{{"kill -9", syscall.SIGKILL}, {"Ctrl-C", syscall.SIGINT}} {
		t.Run(stop.name, func(t *testing.T) {
			m := newManual(t)
			stash := t.TempDir()
			env := append(os.Environ(), "HEED_CONFIG="+filepath.Join(t.TempDir(), "none.yaml"))
			args := []string{"crawl", m.URL + "/", "--stash", stash, "--allow-net", "127.0.0.1/32", "--delay", "0s", "--max-pages", "2000"}
			cmd := exec.Command(bin, args...)
			cmd.Env = env
			var out1 strings.Builder
			cmd.Stdout = &out1
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			for deadline := time.Now().Add(2 * time.Minute); ; time.Sleep(5 * time.Millisecond) {
				if n, _, _ := m.pages(); n >= manualPages/2 {
					break
				}
				if time.Now().After(deadline) {
					cmd.Process.Kill()
					t.Fatal("the crawl did not reach half of the manual") // a guard against a hang, not a measure
				}
			}
			cmd.Process.Signal(stop.sig)
			err := cmd.Wait()
			asked, _, _ := m.pages()
			var exit *exec.ExitError
			if !errors.As(err, &exit) {
				t.Fatalf("the first run, stopped: %v", err)
			}
			if stop.sig == syscall.SIGINT && (exit.ExitCode() != 1 || !strings.Contains(out1.String(), " stored (")) {
				t.Errorf("Ctrl-C: exit %d, printed %q; want exit 1 and the summary so far", exit.ExitCode(), out1.String())
			}

			again := exec.Command(bin, args...)
			again.Env = env
			var out2, err2 strings.Builder
			again.Stdout, again.Stderr = &out2, &err2
			if err := again.Run(); err != nil {
				t.Fatalf("the same command again: %v\n%s\n%s", err, out2.String(), err2.String())
			}
			first, _, _ := strings.Cut(err2.String(), "\n")
			mt := resumedLine.FindStringSubmatch(first)
			if mt == nil || mt[1] != "1" {
				t.Fatalf("the same command's first line %q: want it to say it resumes crawl 1", first)
			}
			ended, _ := strconv.Atoi(mt[2])
			total, twice, others := m.pages()
			inFlight := asked - ended // requests made that had not ended
			t.Logf("%s at %d page requests: %d ended, %d in flight; %d page requests in all for %d pages, %d pages asked twice",
				stop.name, asked, ended, inFlight, total, manualPages, twice)
			if total-manualPages > inFlight || inFlight < 0 {
				t.Errorf("%d page requests for %d pages: more than the %d in flight at the stop", total, manualPages, inFlight)
			}
			// What was in flight is what the crawl holds between a request
			// and its record: a request, the pages waiting to be
			// extracted and stored (a batch of 64), and the ledger's
			// last write. A crawl that recorded its frontier only at its
			// end would have all it asked in flight.
			if inFlight > maxInFlight {
				t.Errorf("%d of %d page requests were in flight at the stop: the ledger lags more than the %d a crawl holds unrecorded", inFlight, asked, maxInFlight)
			}
			if stop.sig == syscall.SIGINT && total-manualPages > 1 {
				t.Errorf("after Ctrl-C, %d pages were asked again: the pages fetched are stored, so at most the one request in the air is", total-manualPages)
			}
			for p, n := range others {
				if n != 1 {
					// robots.txt lives 24 hours; the sitemap and llms.txt
					// seeded the crawl when it began.
					t.Errorf("%s was asked for %d times, want once", p, n)
				}
			}
			indexed := checkStash(t, bin, env, stash, "127.0.0.1_"+m.URL[strings.LastIndex(m.URL, ":")+1:])
			if len(indexed) != manualPages {
				t.Errorf("%d pages in the stash, want %d", len(indexed), manualPages)
			}

			// heed status says crawl 1 is done, with every page.
			st := exec.Command(bin, "status", "1", "--json", "--stash", stash)
			st.Env = env
			b, err := st.Output()
			var got struct {
				Crawls []struct {
					ID     int64
					State  string
					Counts struct{ Stored, Unchanged int }
				}
			}
			if err != nil || json.Unmarshal(b, &got) != nil || len(got.Crawls) != 1 || got.Crawls[0].State != "done" ||
				got.Crawls[0].Counts.Stored+got.Crawls[0].Counts.Unchanged < manualPages {
				t.Errorf("heed status 1 --json: %v, %s", err, b)
			}
		})
	}
}
