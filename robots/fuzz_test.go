package robots

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
)

// fuzzURLs are matched against every fuzzed file.
var fuzzURLs = []string{
	"/", "/robots.txt", "/a", "/a/b.gif", "/foo/bar?baz=quz", "/%E3%83%84", "/a*b$c",
	"https://example.com/private/x", "http://[::1", "",
}

func addSeeds(f *testing.F) {
	files, _ := filepath.Glob("testdata/conformance/*.txt")
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte("User-agent: *\nDisallow: /*a*a*a*a$\nCrawl-delay: 1.5\nContent-Signal: ai-train=no\n"))
	f.Add([]byte("\xEF\xBB\xBFuseragent a\rdisalow /x\r\nsite-map: s\nHost: h\n"))
}

// FuzzParse checks that Parse never panics, that every URL gets a decision,
// and that formatting and parsing again gives the same file.
func FuzzParse(f *testing.F) {
	addSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		r := Parse(data)
		Lint(data)
		unranked := fileOrder(r)
		for _, u := range fuzzURLs {
			for _, agent := range []string{"heed", "*", ""} {
				d := r.Allowed(agent, u)
				if want := unranked.Allowed(agent, u); d.Rule != want.Rule || d.Allowed != want.Allowed || d.Reason != want.Reason {
					t.Fatalf("Allowed(%q, %q): ranked rules decide %v, file order %v", agent, u, d, want)
				}
				if d.Reason == 0 || d.Reason == ReasonRule && d.Rule == nil {
					t.Fatalf("Allowed(%q, %q) gave an unexplained decision %+v", agent, u, d)
				}
				if !d.Allowed && d.Rule == nil && d.Reason != ReasonBadURL {
					t.Fatalf("Allowed(%q, %q) disallowed without a rule", agent, u)
				}
			}
		}
		if _, ok := r.CrawlDelay("heed"); ok {
			r.ContentSignals("heed")
		}
		text := r.String()
		again := Parse([]byte(text))
		if diff := cmp.Diff(withoutLines(r), withoutLines(again), cmpRobots...); diff != "" {
			t.Fatalf("Parse(Format(Parse(%q))) differs (-want +got):\n%s\nformatted:\n%s", data, diff, text)
		}
		if utf8.Valid(data) && !utf8.ValidString(text) {
			t.Fatalf("Format made invalid UTF-8 of valid input")
		}
	})
}

// FuzzMatch checks the segment scan against a plain backtracking matcher
// on short inputs.
func FuzzMatch(f *testing.F) {
	for _, s := range [][2]string{
		{"/*.gif$", "/a.gif"}, {"/a*b*c", "/aXbYc"}, {"*", ""}, {"/a$", "/a"}, {"/a**$", "/ab"},
		{"/%2A", "/*"}, {"/a$b", "/a$b"}, {"/%62", "/b"}, {"/ツ", "/%E3%83%84"}, {"$", ""},
	} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, pat, path string) {
		if len(pat) > 64 || len(path) > 64 {
			return
		}
		// An absolute URL is matched on the same target as its path.
		if strings.HasPrefix(path, "/") && !strings.HasPrefix(path, "//") {
			a, okA := matchTarget("https://example.com" + path)
			b, okB := matchTarget(path)
			if a != b || !okA || !okB {
				t.Fatalf("matchTarget of %q: absolute %q %v, path %q %v", path, a, okA, b, okB)
			}
		}
		p := compile(pat)
		target := normalize(path, true)
		got := p.match(target)
		want := naiveMatch(pat, target)
		if got != want {
			t.Fatalf("pattern %q against %q (normalized %q): got %v, want %v", pat, path, target, got, want)
		}
	})
}

// naiveMatch is the definition of a match, written as directly as
// possible: '*' matches any run, a trailing '$' anchors the end, and the
// pattern is a prefix of the path otherwise.
func naiveMatch(pat, path string) bool {
	end := strings.HasSuffix(pat, "$")
	if end {
		pat = pat[:len(pat)-1]
	}
	pat = normalize(pat, false)
	// ok[i][j]: pat[i:] matches path[j:] (to its end if anchored).
	ok := make([][]bool, len(pat)+1)
	for i := range ok {
		ok[i] = make([]bool, len(path)+1)
	}
	for j := range len(path) + 1 {
		ok[len(pat)][j] = !end || j == len(path)
	}
	for i := len(pat) - 1; i >= 0; i-- {
		for j := len(path); j >= 0; j-- {
			switch {
			case pat[i] == '*':
				ok[i][j] = ok[i+1][j] || j < len(path) && ok[i][j+1]
			default:
				ok[i][j] = j < len(path) && path[j] == pat[i] && ok[i+1][j+1]
			}
		}
	}
	return ok[0][0]
}
