package robots

import (
	"bufio"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/heedhq/heed/internal/testutil"
)

func TestAllowed(t *testing.T) {
	tests := []struct {
		name   string
		robots string
		agent  string
		url    string
		want   bool
		line   int // line of the deciding rule; 0 when no rule decided
	}{
		// Group selection.
		{"no file allows", "", "heed", "/x", true, 0},
		{"star group applies", "User-agent: *\nDisallow: /x\n", "heed", "/x", false, 2},
		{"named group wins over star", "User-agent: *\nDisallow: /\nUser-agent: heed\nDisallow: /x\n", "heed/1.0", "/y", true, 0},
		{"named group rules", "User-agent: *\nDisallow: /\nUser-agent: heed\nDisallow: /x\n", "heed/1.0", "/x/1", false, 4},
		{"product token case-insensitive", "User-agent: HEED\nDisallow: /\n", "Heed/0.1 (+https://example.com)", "/a", false, 2},
		{"file user-agent reduced to its token", "User-agent: heed/2.0 beta\nDisallow: /\n", "heed", "/a", false, 2},
		{"token is whole, not a prefix", "User-agent: heedbot\nDisallow: /\n", "heed", "/a", true, 0},
		{"token with hyphen and underscore", "User-agent: heed-news_x\nDisallow: /\n", "heed-news_x/3", "/a", false, 2},
		{"hyphenated token is not its prefix", "User-agent: heed\nDisallow: /\n", "heed-news", "/a", true, 0},
		{"no group for agent and no star allows", "User-agent: other\nDisallow: /\n", "heed", "/a", true, 0},
		{"agent without token gets star", "User-agent: *\nDisallow: /s\nUser-agent: 9bot\nAllow: /\n", "9bot", "/s", false, 2},
		{"star followed by text is star", "User-agent: * # all\nDisallow: /s\n", "heed", "/s", false, 2},
		{"groups naming the agent merge", "User-agent: heed\nDisallow: /a\n\nUser-agent: other\nDisallow: /b\n\nUser-agent: heed\nDisallow: /c\n", "heed", "/c", false, 8},
		{"merged groups: other group's rule not applied", "User-agent: heed\nDisallow: /a\n\nUser-agent: other\nDisallow: /b\n\nUser-agent: heed\nDisallow: /c\n", "heed", "/b", true, 0},
		{"star groups merge", "User-agent: *\nDisallow: /a\nUser-agent: x\nDisallow: /\nUser-agent: *\nDisallow: /b\n", "heed", "/b", false, 6},
		{"empty group for agent allows all", "User-agent: *\nDisallow: /\n\nUser-agent: heed\n", "heed", "/x", true, 0},

		// Patterns.
		{"prefix", "User-agent: *\nDisallow: /fish\n", "a", "/fish.html", false, 2},
		{"prefix is case-sensitive", "User-agent: *\nDisallow: /fish\n", "a", "/Fish.html", true, 0},
		{"trailing slash", "User-agent: *\nDisallow: /fish/\n", "a", "/fish", true, 0},
		{"star in middle", "User-agent: *\nDisallow: /*.php\n", "a", "/folder/filename.php?parameters", false, 2},
		{"star does not cross a missing literal", "User-agent: *\nDisallow: /*.php\n", "a", "/windows.PHP", true, 0},
		{"end anchor", "User-agent: *\nDisallow: /*.php$\n", "a", "/filename.php", false, 2},
		{"end anchor refuses longer", "User-agent: *\nDisallow: /*.php$\n", "a", "/filename.php?parameters", true, 0},
		{"end anchor refuses longer path", "User-agent: *\nDisallow: /*.php$\n", "a", "/filename.php5", true, 0},
		{"pattern without slash", "User-agent: *\nDisallow: *.gif$\n", "a", "/a/b.gif", false, 2},
		{"fish star", "User-agent: *\nDisallow: /fish*\n", "a", "/fishheads/yummy.html", false, 2},
		{"consecutive stars", "User-agent: *\nDisallow: /a***b\n", "a", "/a-x-b", false, 2},
		{"star then end", "User-agent: *\nDisallow: /a*$\n", "a", "/abc", false, 2},
		{"dollar alone matches nothing", "User-agent: *\nDisallow: $\n", "a", "/", true, 0},
		{"dollar inside is literal", "User-agent: *\nDisallow: /a$b\n", "a", "/a$b", false, 2},
		{"dollar inside is not an anchor", "User-agent: *\nDisallow: /a$b\n", "a", "/a", true, 0},
		{"query matched", "User-agent: *\nDisallow: /*?sort=\n", "a", "/list?sort=asc", false, 2},
		{"query as written", "User-agent: *\nDisallow: /s?q=https://x\n", "a", "https://example.com/s?q=https://x", false, 2},
		{"fragment ignored", "User-agent: *\nDisallow: /a$\n", "a", "https://example.com/a#frag", false, 2},
		{"empty path is /", "User-agent: *\nDisallow: /$\n", "a", "https://example.com", false, 2},
		{"empty disallow is no rule", "User-agent: *\nDisallow:\n", "a", "/x", true, 0},
		{"empty allow is no rule", "User-agent: *\nDisallow: /\nAllow:\n", "a", "/x", false, 2},

		// Priority.
		{"longest wins", "User-agent: *\nAllow: /p\nDisallow: /\n", "a", "/page", true, 2},
		{"longest disallow wins", "User-agent: *\nAllow: /folder\nDisallow: /folder/page\n", "a", "/folder/page", false, 3},
		{"allow wins a tie", "User-agent: *\nDisallow: /page\nAllow: /page\n", "a", "/page", true, 3},
		{"allow wins a tie, order reversed", "User-agent: *\nAllow: /page\nDisallow: /page\n", "a", "/page", true, 2},
		{"priority is pattern length as written", "User-agent: *\nAllow: /$\nDisallow: /\n", "a", "/", true, 2},
		{"wildcard length counts", "User-agent: *\nAllow: /*.html\nDisallow: /page\n", "a", "/page.html", true, 2},
		{"not the matched length", "User-agent: *\nAllow: /a\nDisallow: /*z\n", "a", "/abcdefz", false, 3},
		{"rules of merged groups compete", "User-agent: heed\nDisallow: /docs\n\nUser-agent: heed\nAllow: /docs/\n", "heed", "/docs/x", true, 5},

		// Percent-encoding, normalized the same way on both sides.
		{"non-ascii pattern vs encoded url", "User-agent: *\nDisallow: /foo/bar/ツ\n", "a", "/foo/bar/%E3%83%84", false, 2},
		{"encoded pattern vs non-ascii url", "User-agent: *\nDisallow: /foo/bar/%E3%83%84\n", "a", "https://example.com/foo/bar/ツ", false, 2},
		{"lower-case escapes", "User-agent: *\nDisallow: /foo/bar/%e3%83%84\n", "a", "/foo/bar/%E3%83%84", false, 2},
		{"unreserved escape decoded in pattern", "User-agent: *\nDisallow: /foo/bar/%62%61%7A\n", "a", "/foo/bar/baz", false, 2},
		{"unreserved escape decoded in url", "User-agent: *\nDisallow: /foo/bar/baz\n", "a", "/foo/bar/%62%61%7A", false, 2},
		{"tilde escape", "User-agent: *\nDisallow: /~joe/\n", "a", "/%7Ejoe/index.html", false, 2},
		{"reserved escape kept", "User-agent: *\nDisallow: /a%2Fb\n", "a", "/a/b", true, 0},
		{"reserved escape kept, url side", "User-agent: *\nDisallow: /a/b\n", "a", "/a%2fb", true, 0},
		{"reserved escape matches itself", "User-agent: *\nDisallow: /a%2fb\n", "a", "/a%2Fb", false, 2},
		{"encoded star in pattern matches literal star", "User-agent: *\nDisallow: /path/file-with-a-%2A.html\n", "a", "https://www.example.com/path/file-with-a-*.html", false, 2},
		{"encoded dollar in pattern matches literal dollar", "User-agent: *\nDisallow: /path/foo-%24\n", "a", "https://www.example.com/path/foo-$", false, 2},
		{"encoded star is not a wildcard", "User-agent: *\nDisallow: /a%2Ab\n", "a", "/axxb", true, 0},
		{"space in pattern", "User-agent: *\nDisallow: /a b\n", "a", "/a%20b", false, 2},
		{"reserved query characters as written", "User-agent: *\nDisallow: /foo/bar?baz=https%3A%2F%2Ffoo.bar\n", "a", "/foo/bar?baz=https://foo.bar", true, 0},
		{"reserved query escapes match themselves", "User-agent: *\nDisallow: /foo/bar?baz=https%3A%2F%2Ffoo.bar\n", "a", "/foo/bar?baz=https%3a%2f%2ffoo.bar", false, 2},

		// Absolute URLs are matched on their path and query as written,
		// exactly as the same path would be.
		{"absolute url with sub-delims and non-ascii", "User-agent: *\nDisallow: /wiki/Foo_(bar)\n", "a", "https://e.com/wiki/Foo_(bar)_é", false, 2},
		{"absolute url keeps reserved escapes", "User-agent: *\nDisallow: /a%2Fb/\n", "a", "https://e.com/a%2Fb/ツ", false, 2},
		{"absolute url does not decode reserved escapes", "User-agent: *\nDisallow: /a/b/\n", "a", "https://e.com/a%2Fb/ツ", true, 0},
		{"absolute url keeps !", "User-agent: *\nDisallow: /a!b\n", "a", "https://e.com/a!b/ツ", false, 2},
		{"absolute url with a bad escape", "User-agent: *\nDisallow: /private/\n", "a", "https://e.com/private/%zz", false, 2},
		{"absolute url with query and no path", "User-agent: *\nDisallow: /?q\n", "a", "https://e.com?q=1", false, 2},
		{"absolute url with port and userinfo", "User-agent: *\nDisallow: /p\n", "a", "http://u:p@e.com:8080/p", false, 2},

		// Special URLs.
		{"encoded robots.txt always allowed", "User-agent: *\nDisallow: /\n", "a", "/%72obots.txt", true, 0},
		{"robots.txt always allowed", "User-agent: *\nDisallow: /\n", "a", "https://example.com/robots.txt", true, 0},
		{"robots.txt path only", "User-agent: *\nDisallow: /\n", "a", "/robots.txt?x=1", true, 0},
		{"not robots.txt", "User-agent: *\nDisallow: /\n", "a", "/robots.txt/x", false, 2},
		{"unparsable authority, rules still apply", "User-agent: *\nDisallow: /\n", "a", "http://[::1", false, 2},
		{"relative url disallowed", "User-agent: *\nAllow: /\n", "a", "foo/bar", false, 0},
		{"network-path reference disallowed", "User-agent: *\nAllow: /\n", "a", "//e.com/x", false, 0},
		{"opaque url disallowed", "User-agent: *\nAllow: /\n", "a", "mailto:a@e.com", false, 0},

		// Every spelling of a host: the path's rules apply.
		{"unicode host", "User-agent: *\nDisallow: /secret.html\n", "a", "http://www.münich.com/secret.html", false, 2},
		{"punycode host", "User-agent: *\nDisallow: /secret.html\n", "a", "http://www.xn--mnich-kva.com/secret.html", false, 2},
		{"percent-encoded host", "User-agent: *\nDisallow: /secret.html\n", "a", "http://www.m%C3%BCnich.com/secret.html", false, 2},
		{"host with a space", "User-agent: *\nDisallow: /secret.html\n", "a", "http://exa mple.com/secret.html", false, 2},
		{"unicode host and path", "User-agent: *\nDisallow: /ü\n", "a", "http://münich.com/ü", false, 2},
		{"stray percent matched as written", "User-agent: *\nDisallow: /p1%xy\n", "a", "http://e.com/p1%xy", false, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := Parse([]byte(tt.robots))
			d := r.Allowed(tt.agent, tt.url)
			line := 0
			if d.Rule != nil {
				line = d.Rule.Line
			}
			if d.Allowed != tt.want || line != tt.line {
				t.Errorf("Allowed(%q, %q) got %v by line %d (%s), want %v by line %d", tt.agent, tt.url, d.Allowed, line, d, tt.want, tt.line)
			}
			if (d.Reason == ReasonRule) != (d.Rule != nil) {
				t.Errorf("Allowed(%q, %q): reason %s with rule %v", tt.agent, tt.url, d.Reason, d.Rule)
			}
		})
	}
}

func TestDecisionExplains(t *testing.T) {
	r := Parse([]byte("User-agent: *\nAllow: /public/\nDisallow: /\n"))
	tests := []struct {
		url    string
		reason Reason
		text   string
	}{
		{"/private", ReasonRule, `disallowed by line 3 "Disallow: /" (group "User-agent: *" at line 1)`},
		{"/public/x", ReasonRule, `allowed by line 2 "Allow: /public/" (group "User-agent: *" at line 1)`},
		{"/robots.txt", ReasonRobotsTxt, "allowed: /robots.txt is always allowed"},
		{"::", ReasonBadURL, "disallowed: the URL is neither a path nor an absolute URL, so no rule can be applied to it"},
	}
	for _, tt := range tests {
		d := r.Allowed("heed", tt.url)
		if d.Reason != tt.reason || d.String() != tt.text {
			t.Errorf("Allowed(%q) got %s %q, want %s %q", tt.url, d.Reason, d, tt.reason, tt.text)
		}
	}
	d := Parse([]byte("User-agent: heed\nUser-agent: other\nDisallow: /x\n")).Allowed("heed", "/y")
	if want := `allowed: no rule matches (group "User-agent: heed, User-agent: other" at line 1)`; d.String() != want {
		t.Errorf("no-rule decision: got %q, want %q", d, want)
	}
	if d := Parse(nil).Allowed("heed", "/y"); d.Reason != ReasonNoGroup || !d.Allowed {
		t.Errorf("empty file: got %s %v, want no-group allowed", d.Reason, d.Allowed)
	}
}

func TestHandBuiltRules(t *testing.T) {
	r := &Robots{Groups: []Group{{Agents: []string{"*"}, Rules: []Rule{
		NewRule(Disallow, "/*.pdf$"),
		{Kind: Allow, Pattern: "/docs/*.pdf$"}, // not compiled: matched all the same
	}}}}
	if d := r.Allowed("heed", "/a/b.pdf"); d.Allowed {
		t.Errorf("hand-built: /a/b.pdf allowed, want disallowed")
	}
	if d := r.Allowed("heed", "/docs/b.pdf"); !d.Allowed || d.Rule == nil || d.Rule.Pattern != "/docs/*.pdf$" {
		t.Errorf("hand-built: /docs/b.pdf got %s, want allowed by /docs/*.pdf$", d)
	}
}

func TestCrawlDelayAndSignals(t *testing.T) {
	// The groups that apply are merged: the longest delay applies, whatever
	// the order, and "no" wins over "yes", whatever the order.
	r := Parse([]byte("User-agent: *\nCrawl-delay: 1\nContent-Signal: search=yes, ai-input=no\nDisallow: /x\n\n" +
		"User-agent: heed\nCrawl-delay: 0.5\nContent-Signal: ai-input=no, ai-train=yes\nDisallow: /x\n\n" +
		"User-agent: heed\nCrawl-delay: 2\nContent-Signal: ai-input=yes, ai-train=no\nDisallow: /y\n\n" +
		"User-agent: heed\nCrawl-delay: 1.5\nContent-Signal: ai-train=yes, search=no\nDisallow: /z\n\n" +
		"User-agent: silent\nDisallow: /x\n"))
	tests := []struct {
		agent   string
		delay   time.Duration
		ok      bool
		signals Signals
	}{
		{"heed/0.1", 2 * time.Second, true, Signals{"ai-input": false, "ai-train": false, "search": false}},
		{"other", time.Second, true, Signals{"search": true, "ai-input": false}},
		{"silent", 0, false, nil},
	}
	for _, tt := range tests {
		d, ok := r.CrawlDelay(tt.agent)
		if d != tt.delay || ok != tt.ok {
			t.Errorf("CrawlDelay(%q) got %v, %v, want %v, %v", tt.agent, d, ok, tt.delay, tt.ok)
		}
		if diff := cmp.Diff(tt.signals, r.ContentSignals(tt.agent)); diff != "" {
			t.Errorf("ContentSignals(%q) mismatch (-want +got):\n%s", tt.agent, diff)
		}
	}
	if !r.ContentSignals("heed").Denies(SignalAIInput) || r.ContentSignals("other").Denies(SignalSearch) || Signals(nil).Denies(SignalAITrain) {
		t.Errorf("Denies gave the wrong answer")
	}
}

func TestProductToken(t *testing.T) {
	for in, want := range map[string]string{
		"ExampleBot/1.0 (+https://example.com/bot)": "examplebot",
		"heed/0.1.0 (+https://example.com)":         "heed",
		"Googlebot-News":                            "googlebot-news",
		"foo_bar baz":                               "foo_bar",
		"123bot":                                    "",
		"":                                          "",
		"*":                                         "",
	} {
		if got := ProductToken(in); got != want {
			t.Errorf("ProductToken(%q) got %q, want %q", in, got, want)
		}
	}
}

// TestAdversarialPatternCompletes matches the pattern that drives a
// backtracking regexp to exponential time against a long near miss. Its
// cost is measured in BenchmarkAdversarial; here it must give the right
// answers.
func TestAdversarialPattern(t *testing.T) {
	r := Parse([]byte("User-agent: *\nDisallow: /*a*a*a*a*a*a*a*a$\n"))
	miss := "/" + strings.Repeat("a", 100_000) + "b"
	if d := r.Allowed("heed", miss); !d.Allowed {
		t.Errorf("near miss: got disallowed, want allowed")
	}
	hit := "/" + strings.Repeat("ab", 50_000) + "a"
	if d := r.Allowed("heed", hit); d.Allowed {
		t.Errorf("hit: got allowed, want disallowed")
	}
}

// TestConformance runs the cases in testdata/conformance: RFC 9309's
// examples and matching cases drawn from Google's robots.txt tests. Each
// file has a "-- robots.txt --" section and a "-- want --" section of
// lines "allow|disallow AGENT URL [line=N]".
func TestConformance(t *testing.T) {
	files, err := filepath.Glob("testdata/conformance/*.txt")
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no conformance files")
	}
	for _, file := range files {
		sections := testutil.Sections(t, file)
		body, ok := sections["robots.txt"]
		if !ok {
			t.Fatalf("%s: no robots.txt section", file)
		}
		r := Parse([]byte(body))
		sc := bufio.NewScanner(strings.NewReader(sections["want"]))
		n := 0
		for sc.Scan() {
			f := strings.Fields(sc.Text())
			if len(f) == 0 || strings.HasPrefix(f[0], "#") {
				continue
			}
			n++
			if len(f) < 3 || f[0] != "allow" && f[0] != "disallow" {
				t.Fatalf("%s: bad want line %q", file, sc.Text())
			}
			want := f[0] == "allow"
			d := r.Allowed(f[1], f[2])
			if d.Allowed != want {
				t.Errorf("%s: %s %s: got %s", filepath.Base(file), f[1], f[2], d)
			}
			for _, extra := range f[3:] {
				if v, ok := strings.CutPrefix(extra, "line="); ok {
					line, _ := strconv.Atoi(v)
					if d.Rule == nil || d.Rule.Line != line {
						t.Errorf("%s: %s %s: got %s, want decided by line %d", filepath.Base(file), f[1], f[2], d, line)
					}
				}
			}
		}
		if n == 0 {
			t.Errorf("%s: no checks", file)
		}
	}
}

// fileOrder is a copy of r whose groups are matched rule by rule in file
// order, as a group built by hand is. It shares r's rules, so a decision
// of each names the same *Rule.
func fileOrder(r *Robots) *Robots {
	c := *r
	c.Groups = slices.Clone(r.Groups)
	for i := range c.Groups {
		c.Groups[i].ranked = nil
	}
	return &c
}

// TestRankedAsFileOrder checks that stopping at the first matching rule
// of the ranked order decides as trying every rule in file order does,
// the rule that decides included, over rules of every length and kind
// that tie, nest and cross groups.
func TestRankedAsFileOrder(t *testing.T) {
	const file = `User-agent: *
Disallow: /a
Allow: /a
Disallow: /ab*
Allow: /a*b
Disallow: /abc$
Allow: /*c
Disallow: /x/
Allow: /x/y
Disallow: /
Allow: /$

User-agent: heed
Disallow: /p
Allow: /p*q

User-agent: heed
Allow: /p
Disallow: /pq
Disallow: /pq
`
	r := Parse([]byte(file))
	if len(r.Groups[0].ranked) != len(r.Groups[0].Rules) {
		t.Fatal("Parse did not rank the rules")
	}
	unranked := fileOrder(r)
	for _, u := range []string{"/", "/a", "/ab", "/abc", "/abcd", "/ac", "/b", "/c", "/x/", "/x/y", "/x/yz", "/p", "/pq", "/pqq", "/pz", "/q"} {
		for _, agent := range []string{"heed", "other"} {
			got, want := r.Allowed(agent, u), unranked.Allowed(agent, u)
			if got.Allowed != want.Allowed || got.Reason != want.Reason || got.Rule != want.Rule || got.Group.Line != want.Group.Line {
				t.Errorf("Allowed(%q, %q) = %v, in file order %v", agent, u, got, want)
			}
		}
	}
}

// A parsed group changed by hand, its count of rules kept, decides as its
// rules now read: replaced, reordered, or put in a copy of the group.
func TestRankedAfterChanges(t *testing.T) {
	r := Parse([]byte("User-agent: *\nDisallow: /a\nAllow: /ab\n"))
	r.Groups[0].Rules[0] = NewRule(Disallow, "/abcd")
	if d := r.Allowed("x", "/abcd"); d.Allowed {
		t.Errorf("a rule replaced: %v, want disallowed by Disallow: /abcd", d)
	}
	r = Parse([]byte("User-agent: *\nDisallow: /a\nAllow: /abc\n"))
	slices.Reverse(r.Groups[0].Rules)
	if d := r.Allowed("x", "/abcd"); !d.Allowed {
		t.Errorf("rules reordered: %v, want allowed by Allow: /abc", d)
	}
	g := Parse([]byte("User-agent: *\nAllow: /abc\nDisallow: /a\n")).Groups[0]
	g.Rules = []Rule{NewRule(Allow, "/a"), NewRule(Disallow, "/abcdef")}
	if d := (&Robots{Groups: []Group{g}}).Allowed("x", "/abcdefg"); d.Allowed {
		t.Errorf("a copied group given new rules: %v, want disallowed by Disallow: /abcdef", d)
	}
}

// Of rules that tie, the first in the file decides, however many there
// are (a sort that is not stable keeps the order of a few).
func TestRankedTiesInFileOrder(t *testing.T) {
	r := Parse([]byte("User-agent: *\n" + strings.Repeat("Disallow: /a\nAllow: /b\nDisallow: /c\n", 20)))
	if d := r.Allowed("x", "/a"); d.Rule == nil || d.Rule.Line != 2 {
		t.Errorf("decided by %v, want line 2", d)
	}
}
