// Package bench compares heed's robots package with
// github.com/temoto/robotstxt on the same files and URLs. It is a module of
// its own so that heed's go.mod carries only what heed needs.
package bench

import (
	"os"
	"strings"
	"testing"

	"github.com/heedhq/heed/robots"
	"github.com/temoto/robotstxt"
)

const agent = "heed/0.1.0 (+https://github.com/heedhq/heed)"

var files = []string{"small", "large"}

func load(tb testing.TB, name string) []byte {
	tb.Helper()
	data, err := os.ReadFile("testdata/" + name + ".txt")
	if err != nil {
		tb.Fatal(err)
	}
	return data
}

func paths(tb testing.TB) []string {
	return strings.Fields(string(load(tb, "paths")))
}

func BenchmarkParse(b *testing.B) {
	for _, name := range files {
		data := load(b, name)
		b.Run("heed/"+name, func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for b.Loop() {
				robots.Parse(data)
			}
		})
		b.Run("temoto/"+name, func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := robotstxt.FromBytes(data); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkMatch measures one decision per op: the same paths, the same
// agent, against each file.
func BenchmarkMatch(b *testing.B) {
	ps := paths(b)
	for _, name := range files {
		data := load(b, name)
		r := robots.Parse(data)
		t, err := robotstxt.FromBytes(data)
		if err != nil {
			b.Fatal(err)
		}
		b.Run("heed/"+name, func(b *testing.B) {
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				r.Allowed(agent, ps[i%len(ps)])
				i++
			}
		})
		b.Run("temoto/"+name, func(b *testing.B) {
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				t.TestAgent(ps[i%len(ps)], agent)
				i++
			}
		})
		// heed also takes absolute URLs, which temoto does not.
		b.Run("heed-absolute/"+name, func(b *testing.B) {
			urls := make([]string, len(ps))
			for i, p := range ps {
				urls[i] = "https://www.example.com" + p
			}
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				r.Allowed(agent, urls[i%len(urls)])
				i++
			}
		})
	}
}

// BenchmarkAdversarial matches a pattern of eight wildcards that drives a
// backtracking matcher to exponential time against a 100,000-character
// near miss, beside a pattern of the same length with one wildcard that
// also has to scan the whole path.
func BenchmarkAdversarial(b *testing.B) {
	near := "/" + strings.Repeat("a", 100_000) + "b"
	cases := []struct{ name, pattern, path string }{
		{"wildcards", "/*a*a*a*a*a*a*a*a$", near},
		{"plain", "/*aaaaaaaaaaaaaac", near}, // same length, one wildcard, scans the path
		// An interior segment that is found only at the very end makes
		// the scan cross the path once more.
		{"wildcards-late", "/*a*a*a*a*a*a*b*c", near},
	}
	for _, c := range cases {
		file := []byte("User-agent: *\nDisallow: " + c.pattern + "\n")
		r := robots.Parse(file)
		b.Run("heed/"+c.name, func(b *testing.B) {
			b.SetBytes(int64(len(c.path)))
			for b.Loop() {
				r.Allowed(agent, c.path)
			}
		})
		t, err := robotstxt.FromBytes(file)
		if err != nil {
			b.Fatal(err)
		}
		b.Run("temoto/"+c.name, func(b *testing.B) {
			b.SetBytes(int64(len(c.path)))
			for b.Loop() {
				t.TestAgent(c.path, agent)
			}
		})
	}
}

// TestSameAnswers checks that the comparison is fair: on these files and
// paths, the two libraries agree wherever temoto follows RFC 9309 (temoto
// picks the first rule on a tie and matches wildcard patterns anywhere in
// the path, so those paths are counted, not compared).
func TestSameAnswers(t *testing.T) {
	ps := paths(t)
	for _, name := range files {
		data := load(t, name)
		r := robots.Parse(data)
		tr, err := robotstxt.FromBytes(data)
		if err != nil {
			t.Fatal(err)
		}
		differ := 0
		for _, p := range ps {
			if r.Allowed(agent, p).Allowed != tr.TestAgent(p, agent) {
				differ++
			}
		}
		t.Logf("%s: %d of %d paths decided differently", name, differ, len(ps))
		if differ > len(ps)/10 {
			t.Errorf("%s: %d of %d paths decided differently; the files do not compare like with like", name, differ, len(ps))
		}
	}
}
