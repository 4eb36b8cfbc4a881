package history

import (
	"strings"
	"testing"
	"time"

	"github.com/heedhq/heed"
)

var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func ver(day int, text string) heed.PageVersion {
	return heed.PageVersion{At: t0.AddDate(0, 0, day), Hash: heed.HashOf(text), Size: len(text)}
}

func TestAppendNumbersAndKeepsTheLast(t *testing.T) {
	var vs []heed.PageVersion
	r := Retention{Versions: 3, MaxAge: -1}
	var dropped []heed.PageVersion
	for i := range 5 {
		var d []heed.PageVersion
		vs, d = Append(vs, ver(i, string(rune('a'+i))), r, t0.AddDate(0, 0, i))
		dropped = append(dropped, d...)
	}
	if len(vs) != 3 || vs[0].N != 3 || vs[2].N != 5 {
		t.Fatalf("kept %+v, want versions 3 to 5", vs)
	}
	if len(dropped) != 2 || dropped[0].N != 1 || dropped[1].N != 2 {
		t.Fatalf("dropped %+v, want versions 1 and 2", dropped)
	}
	// Numbers go on from the last, never given twice.
	vs, _ = Append(vs, heed.PageVersion{At: t0.AddDate(0, 0, 9), Removed: "404"}, r, t0.AddDate(0, 0, 9))
	if vs[len(vs)-1].N != 6 {
		t.Fatalf("removal numbered %d, want 6", vs[len(vs)-1].N)
	}
}

func TestPruneByAgeKeepsTheCurrent(t *testing.T) {
	vs := []heed.PageVersion{{N: 1, At: t0}, {N: 2, At: t0.AddDate(0, 0, 10)}, {N: 3, At: t0.AddDate(0, 0, 20)}}
	kept, dropped := Prune(vs, Retention{Versions: -1, MaxAge: 15 * 24 * time.Hour}, t0.AddDate(0, 0, 30))
	// Version 1 was replaced on day 10, 20 days before: it goes. Version
	// 2 was replaced on day 20, 10 days before: it stays.
	if len(kept) != 2 || kept[0].N != 2 || len(dropped) != 1 {
		t.Fatalf("kept %+v dropped %+v", kept, dropped)
	}
	kept, _ = Prune(vs, Retention{Versions: -1, MaxAge: time.Hour}, t0.AddDate(5, 0, 0))
	if len(kept) != 1 || kept[0].N != 3 {
		t.Fatalf("an old current version must stay: %+v", kept)
	}
	if d := (Retention{}).Filled(); d.Versions != DefaultVersions || d.MaxAge != DefaultMaxAge {
		t.Fatalf("defaults %+v", d)
	}
}

func TestSince(t *testing.T) {
	a, b := ver(1, "a"), ver(5, "b")
	a.N, b.N = 1, 2
	gone := heed.PageVersion{N: 3, At: t0.AddDate(0, 0, 8), Removed: "404"}
	back := ver(12, "a")
	back.N = 4
	for _, tc := range []struct {
		vs    []heed.PageVersion
		since int
		want  heed.Change
		from  int
		to    int
	}{
		{[]heed.PageVersion{a}, 0, heed.New, 0, 1},
		{[]heed.PageVersion{a}, 2, "", 0, 0},
		{[]heed.PageVersion{a, b}, 2, heed.Changed, 1, 2},
		{[]heed.PageVersion{a, b}, 0, heed.New, 0, 2},
		{[]heed.PageVersion{a, b, gone}, 6, heed.Removed, 2, 3},
		{[]heed.PageVersion{a, b, gone}, 2, heed.Removed, 1, 3},
		{[]heed.PageVersion{a, b, gone}, 0, "", 0, 0},
		{[]heed.PageVersion{a, b, gone, back}, 9, heed.New, 0, 4},
		{[]heed.PageVersion{a, b, gone, back}, 6, heed.Changed, 2, 4},
	} {
		c, from, to, _, ok := Since(tc.vs, t0.AddDate(0, 0, tc.since))
		if c != tc.want || from != tc.from || to != tc.to || ok != (tc.want != "") {
			t.Errorf("Since(%d entries, day %d) = %q %d→%d %v, want %q %d→%d", len(tc.vs), tc.since, c, from, to, ok, tc.want, tc.from, tc.to)
		}
	}
}

func TestEncodeDecode(t *testing.T) {
	v := ver(3, "text")
	v.N, v.ETag, v.LastModified = 7, `W/"x y"`, "Mon, 07 Dec 2026 09:40:46 GMT"
	got, err := Decode(Encode(v))
	if err != nil || got != v {
		t.Fatalf("Decode(Encode(%+v)) = %+v, %v", v, got, err)
	}
	if strings.Contains(Encode(v), "\n") {
		t.Fatal("an entry must be one line")
	}
	good := Encode(v)
	v8 := v
	v8.N = 8
	for _, bad := range []string{"", "{", `{"n":0,"at":"2026-01-01T00:00:00Z","hash":"` + v.Hash + `"}`,
		`{"n":2,"hash":"` + v.Hash + `"}`, `{"n":2,"at":"2026-01-01T00:00:00Z","hash":"../../etc/passwd"}`,
		`{"n":2,"at":"2026-01-01T00:00:00Z","hash":"` + v.Hash + `","size":-1}`} {
		if _, err := Decode(bad); err == nil {
			t.Errorf("Decode(%q) took it", bad)
		}
	}
	vs, bad := DecodeAll([]string{good, "garbage", good, Encode(v8)})
	if len(vs) != 2 || vs[1].N != 8 || len(bad) != 2 || bad[0] != "garbage" {
		t.Fatalf("DecodeAll: %+v, unreadable %q", vs, bad)
	}
}

func TestCurrent(t *testing.T) {
	a := ver(1, "a")
	a.N = 1
	gone := heed.PageVersion{N: 2, At: t0.AddDate(0, 0, 2), Removed: "410"}
	if v, removed := Current([]heed.PageVersion{a, gone}); removed != true || v.N != 1 {
		t.Fatalf("Current = %+v %v", v, removed)
	}
	if v, removed := Current([]heed.PageVersion{a}); removed || v.N != 1 {
		t.Fatalf("Current = %+v %v", v, removed)
	}
}

func TestRecordAndRemove(t *testing.T) {
	r := Retention{}
	vs, _, c := Record(nil, ver(1, "a"), r, t0)
	if c != heed.New || len(vs) != 1 || vs[0].N != 1 {
		t.Fatalf("first: %q %+v", c, vs)
	}
	vs, _, c = Record(vs, ver(2, "a"), r, t0)
	if c != heed.Unchanged || len(vs) != 1 {
		t.Fatalf("same content: %q %+v", c, vs)
	}
	vs, _, c = Record(vs, ver(3, "b"), r, t0)
	if c != heed.Changed || len(vs) != 2 || vs[1].N != 2 {
		t.Fatalf("changed: %q %+v", c, vs)
	}
	vs, _, ok := Remove(vs, t0.AddDate(0, 0, 4), "410", r)
	if !ok || vs[2].Removed != "410" || vs[2].N != 3 {
		t.Fatalf("removed: %v %+v", ok, vs)
	}
	if _, _, ok := Remove(vs, t0.AddDate(0, 0, 5), "404", r); ok {
		t.Fatal("a page removed already was removed again")
	}
	if _, _, ok := Remove(nil, t0, "404", r); ok {
		t.Fatal("a page without a version was removed")
	}
	// The same content back after its removal is a new version.
	vs, _, c = Record(vs, ver(6, "b"), r, t0)
	if c != heed.New || len(vs) != 4 || vs[3].N != 4 {
		t.Fatalf("back: %q %+v", c, vs)
	}
}

// FuzzDecode: any line is read without a panic, and a line read is
// written back as one that reads the same.
func FuzzDecode(f *testing.F) {
	f.Add(Encode(heed.PageVersion{N: 3, At: t0, Hash: heed.HashOf("a"), Size: 1, ETag: `W/"x"`}))
	f.Add(`{"n":2,"at":"2026-01-01T00:00:00Z","removed":"404"}`)
	f.Add(`{"n":1e400,"at":"x"}`)
	f.Fuzz(func(t *testing.T, line string) {
		v, err := Decode(line)
		if err != nil {
			return
		}
		again, err := Decode(Encode(v))
		if err != nil {
			t.Fatalf("Decode(Encode(%+v)): %v", v, err)
		}
		if again.N != v.N || again.Hash != v.Hash || again.Removed != v.Removed || !again.At.Equal(v.At.Truncate(time.Second)) {
			t.Fatalf("%+v read back as %+v", v, again)
		}
	})
}
