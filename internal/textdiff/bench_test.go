package textdiff

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"runtime/metrics"
	"strings"
	"sync"
	"testing"
	"time"
)

// page is Markdown of about n bytes: headings, paragraphs of words
// from a vocabulary of a few hundred, lists and blank lines.
func page(r *rand.Rand, n int) string {
	vocab := make([]string, 300)
	for i := range vocab {
		vocab[i] = fmt.Sprint([]string{"the", "page", "heed", "word", "crawl", "site", "robots"}[i%7], i/7)
	}
	var b strings.Builder
	for b.Len() < n {
		switch r.IntN(6) {
		case 0:
			b.WriteString("## " + vocab[r.IntN(len(vocab))] + "\n\n")
		case 1:
			for range 1 + r.IntN(5) {
				b.WriteString("- " + vocab[r.IntN(len(vocab))] + " " + vocab[r.IntN(len(vocab))] + "\n")
			}
			b.WriteString("\n")
		default:
			for i := range 20 + r.IntN(80) {
				if i > 0 {
					b.WriteString(" ")
				}
				b.WriteString(vocab[r.IntN(len(vocab))])
			}
			b.WriteString(".\n\n")
		}
	}
	return b.String()
}

// edited changes about one word in every per of s.
func edited(r *rand.Rand, s string, per int) string {
	ws := strings.SplitAfter(s, " ")
	for i := range ws {
		if r.IntN(per) == 0 {
			ws[i] = "edited" + fmt.Sprint(r.IntN(100)) + " "
		}
	}
	return strings.Join(ws, "")
}

// unshared is about n bytes of words no other call makes, on lines.
func unshared(r *rand.Rand, n int, tag string) string {
	var b strings.Builder
	for i := 0; b.Len() < n; i++ {
		fmt.Fprintf(&b, "%s%d", tag, r.Uint32())
		if i%12 == 11 {
			b.WriteString("\n")
		} else {
			b.WriteString(" ")
		}
	}
	return b.String()
}

// oneCharWords is n words of one character, a or b at random, joined
// by sep.
func oneCharWords(r *rand.Rand, n int, sep string) string {
	var b strings.Builder
	for range n {
		b.WriteByte("ab"[r.IntN(2)])
		b.WriteString(sep)
	}
	return b.String()
}

// pair makes two texts to compare.
type pair struct {
	name string
	make func(r *rand.Rand) (old, new string)
}

var pairs = []pair{
	{"page-50KB-1in200", func(r *rand.Rand) (string, string) { p := page(r, 50_000); return p, edited(r, p, 200) }},
	{"page-50KB-1in5", func(r *rand.Rand) (string, string) { p := page(r, 50_000); return p, edited(r, p, 5) }},
	{"page-10MB-1in1000", func(r *rand.Rand) (string, string) { p := page(r, 10<<20); return p, edited(r, p, 1000) }},
	{"unshared-10MB", func(r *rand.Rand) (string, string) { return unshared(r, 10<<20, "a"), unshared(r, 10<<20, "b") }},
	{"1M-one-char-words-line", func(r *rand.Rand) (string, string) {
		return oneCharWords(r, 1_000_000, " "), oneCharWords(r, 1_000_000, " ")
	}},
	{"1M-one-char-words-lines", func(r *rand.Rand) (string, string) {
		return oneCharWords(r, 1_000_000, "\n"), oneCharWords(r, 1_000_000, "\n")
	}},
}

// The benchmarks compare pairs of texts: a page of 50 KB with one word
// in 200 changed, and one in 5; a page of 10 MB with one word in 1,000
// changed; two texts of 10 MB that share no word; and two texts of a
// million words of one character, a or b at random, on one line and one
// to a line. Each reports the most heap its runs took, on top of the
// texts (garbage not yet collected included), sampled every millisecond.
//
//	go test -run '^$' -bench . -benchmem ./internal/textdiff
func BenchmarkWords(b *testing.B) { bench(b, func(o, n string) { Words(o, n) }) }
func BenchmarkCount(b *testing.B) { bench(b, func(o, n string) { Count(o, n) }) }
func BenchmarkLines(b *testing.B) { bench(b, func(o, n string) { Lines("old", "new", o, n) }) }

func bench(b *testing.B, f func(old, new string)) {
	for _, p := range pairs {
		b.Run(p.name, func(b *testing.B) {
			old, new := p.make(rand.New(rand.NewPCG(20, 21)))
			b.SetBytes(int64(len(old) + len(new)))
			b.ReportAllocs()
			runtime.GC()
			base := heapNow()
			peak := sampleHeap()
			for b.Loop() {
				f(old, new)
			}
			most := peak()
			b.ReportMetric(float64(most-min(base, most))/(1<<20), "MB-heap")
		})
	}
}

// heapNow is the heap the program's objects take, garbage included.
func heapNow() uint64 {
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// sampleHeap reads the heap in use every millisecond until the function
// it returns is called, which returns the most it read.
func sampleHeap() func() uint64 {
	stop, done := make(chan struct{}), make(chan uint64)
	go func() {
		var most uint64
		t := time.NewTicker(time.Millisecond)
		defer t.Stop()
		for {
			most = max(most, heapNow())
			select {
			case <-stop:
				done <- most
				return
			case <-t.C:
			}
		}
	}()
	var most uint64
	var once sync.Once
	return func() uint64 {
		once.Do(func() { close(stop); most = <-done })
		return most
	}
}
