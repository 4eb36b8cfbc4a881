package robots

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// cmpRobots compares parsed files by their exported fields, treating nil
// and empty alike.
var cmpRobots = []cmp.Option{cmpopts.IgnoreUnexported(Rule{}, Group{}), cmpopts.EquateEmpty()}

func rule(k Kind, pat string, line int) Rule { return Rule{Kind: k, Pattern: pat, Line: line} }

func TestParse(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want Robots
	}{
		{
			name: "empty",
			in:   "",
			want: Robots{},
		},
		{
			name: "html is a file with no groups",
			in:   "<!doctype html>\n<html><body><p>Not found</p></body></html>\n",
			want: Robots{},
		},
		{
			name: "consecutive user-agents share a group",
			in:   "User-agent: a\nUser-agent: b\nDisallow: /x\n",
			want: Robots{Groups: []Group{{Agents: []string{"a", "b"}, Line: 1, Rules: []Rule{rule(Disallow, "/x", 3)}}}},
		},
		{
			name: "a rule ends the run of user-agents",
			in:   "User-agent: a\nDisallow: /x\nUser-agent: b\nAllow: /y\n",
			want: Robots{Groups: []Group{
				{Agents: []string{"a"}, Line: 1, Rules: []Rule{rule(Disallow, "/x", 2)}},
				{Agents: []string{"b"}, Line: 3, Rules: []Rule{rule(Allow, "/y", 4)}},
			}},
		},
		{
			name: "blank lines, comments, sitemaps and unknown lines do not split a group",
			in:   "User-agent: a\n\n# a comment\nSitemap: https://example.com/s.xml\nHost: example.com\nUser-agent: b\nDisallow: /x\n",
			want: Robots{
				Groups:   []Group{{Agents: []string{"a", "b"}, Line: 1, Rules: []Rule{rule(Disallow, "/x", 7)}}},
				Sitemaps: []string{"https://example.com/s.xml"},
				Records:  []Record{{Name: "host", Value: "example.com", Line: 5}},
			},
		},
		{
			name: "rules before the first group are dropped",
			in:   "Disallow: /early\nCrawl-delay: 5\nUser-agent: *\nDisallow: /late\n",
			want: Robots{Groups: []Group{{Agents: []string{"*"}, Line: 3, Rules: []Rule{rule(Disallow, "/late", 4)}}}},
		},
		{
			name: "byte order mark and CR, LF, CRLF line ends",
			in:   "\xEF\xBB\xBFUser-agent: a\rDisallow: /cr\nDisallow: /lf\r\nDisallow: /crlf\r\n",
			want: Robots{Groups: []Group{{Agents: []string{"a"}, Line: 1, Rules: []Rule{
				rule(Disallow, "/cr", 2), rule(Disallow, "/lf", 3), rule(Disallow, "/crlf", 4),
			}}}},
		},
		{
			name: "empty lines count",
			in:   "\r\n\r\nUser-agent: a\n\n\nDisallow: /x",
			want: Robots{Groups: []Group{{Agents: []string{"a"}, Line: 3, Rules: []Rule{rule(Disallow, "/x", 6)}}}},
		},
		{
			name: "comments anywhere, field names case-insensitive, whitespace trimmed",
			in:   "USER-AGENT:\ta # comment\n  dIsAlLoW :  /x#y  \n\tALLOW:/z\t# trailing\n",
			want: Robots{Groups: []Group{{Agents: []string{"a"}, Line: 1, Rules: []Rule{rule(Disallow, "/x", 2), rule(Allow, "/z", 3)}}}},
		},
		{
			name: "misspellings and missing colons that Google accepts",
			in:   "useragent: a\nuser agent: b\ndisalow: /1\ndissallow: /2\ndissalow: /3\ndiasllow: /4\ndisallaw: /5\nDisallow /6\nsite-map: https://example.com/m.xml\n",
			want: Robots{
				Groups: []Group{{Agents: []string{"a", "b"}, Line: 1, Rules: []Rule{
					rule(Disallow, "/1", 3), rule(Disallow, "/2", 4), rule(Disallow, "/3", 5),
					rule(Disallow, "/4", 6), rule(Disallow, "/5", 7), rule(Disallow, "/6", 8),
				}}},
				Sitemaps: []string{"https://example.com/m.xml"},
			},
		},
		{
			name: "a colonless line of more than two words is not read",
			in:   "User-agent: a\nDisallow /x /y\nAllow /z\n",
			want: Robots{Groups: []Group{{Agents: []string{"a"}, Line: 1, Rules: []Rule{rule(Allow, "/z", 3)}}}},
		},
		{
			name: "empty disallow is kept and ends the run of user-agents",
			in:   "User-agent: a\nDisallow:\nUser-agent: b\nDisallow: /x\n",
			want: Robots{Groups: []Group{
				{Agents: []string{"a"}, Line: 1, Rules: []Rule{rule(Disallow, "", 2)}},
				{Agents: []string{"b"}, Line: 3, Rules: []Rule{rule(Disallow, "/x", 4)}},
			}},
		},
		{
			name: "a non-breaking space is part of the value",
			in:   "User-agent: a\nDisallow: /x\u00a0\n",
			want: Robots{Groups: []Group{{Agents: []string{"a"}, Line: 1, Rules: []Rule{rule(Disallow, "/x\u00a0", 2)}}}},
		},
		{
			name: "crawl-delay and content signals per group, invalid ones ignored",
			in: "User-agent: a\nCrawl-delay: 2.5\nContent-Signal: search=yes, ai-train=no\nDisallow: /a\n" +
				"User-agent: b\nCrawl-delay: soon\nContent-Signal: whatever\nDisallow: /b\n" +
				"User-agent: c\nCrawl-delay: 1\nCrawl-delay: 3\nContent-signal: AI-Input = No, bogus\ncontent-signal: ai-input=yes\n",
			want: Robots{Groups: []Group{
				{Agents: []string{"a"}, Line: 1, CrawlDelay: 2500 * time.Millisecond, HasCrawlDelay: true,
					Signals: Signals{"search": true, "ai-train": false}, Rules: []Rule{rule(Disallow, "/a", 4)}},
				{Agents: []string{"b"}, Line: 5, Rules: []Rule{rule(Disallow, "/b", 8)}},
				{Agents: []string{"c"}, Line: 9, CrawlDelay: 3 * time.Second, HasCrawlDelay: true,
					Signals: Signals{"ai-input": true}},
			}},
		},
		{
			name: "crawl-delay and content-signal do not end a run of user-agents (RFC 9309 §2.2.4)",
			in:   "User-agent: a\nCrawl-delay: 5\nUser-agent: b\nContent-Signal: ai-train=no\nUser-agent: c\nCrawl-delay: x\nUser-agent: d\nDisallow: /\n",
			want: Robots{Groups: []Group{{
				Agents: []string{"a", "b", "c", "d"}, Line: 1, CrawlDelay: 5 * time.Second, HasCrawlDelay: true,
				Signals: Signals{"ai-train": false}, Rules: []Rule{rule(Disallow, "/", 8)},
			}}},
		},
		{
			name: "sitemaps from anywhere",
			in:   "Sitemap: https://example.com/1.xml\nUser-agent: *\nSitemap: https://example.com/2.xml\nDisallow: /\nsitemap:https://example.com/3.xml\n",
			want: Robots{
				Groups:   []Group{{Agents: []string{"*"}, Line: 2, Rules: []Rule{rule(Disallow, "/", 4)}}},
				Sitemaps: []string{"https://example.com/1.xml", "https://example.com/2.xml", "https://example.com/3.xml"},
			},
		},
		{
			name: "a group with no members at the end of the file",
			in:   "User-agent: a\nDisallow: /\n\nUser-agent: quxbot\n",
			want: Robots{Groups: []Group{
				{Agents: []string{"a"}, Line: 1, Rules: []Rule{rule(Disallow, "/", 2)}},
				{Agents: []string{"quxbot"}, Line: 4},
			}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Parse([]byte(tt.in))
			if diff := cmp.Diff(&tt.want, got, cmpRobots...); diff != "" {
				t.Errorf("Parse(%q) mismatch (-want +got):\n%s", tt.in, diff)
			}
		})
	}
}

func TestParseDelay(t *testing.T) {
	tests := []struct {
		in   string
		want time.Duration
		ok   bool
	}{
		{"10", 10 * time.Second, true},
		{"0", 0, true},
		{"0.5", 500 * time.Millisecond, true},
		{".25", 250 * time.Millisecond, true},
		{"5.", 5 * time.Second, true},
		{"1.0000000019", time.Second + 1, true}, // nanosecond precision
		{"99999999999999999999999", time.Duration(maxDelaySeconds) * time.Second, true},
		{"", 0, false},
		{".", 0, false},
		{"-1", 0, false},
		{"+1", 0, false},
		{"1e3", 0, false},
		{"NaN", 0, false},
		{"Inf", 0, false},
		{"1,5", 0, false},
		{"1 s", 0, false},
		{"0x10", 0, false},
	}
	for _, tt := range tests {
		got, ok := parseDelay(tt.in)
		if got != tt.want || ok != tt.ok {
			t.Errorf("parseDelay(%q) got %v, %v, want %v, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}

func TestParseLimit(t *testing.T) {
	head := "User-agent: *\nDisallow: /in\n"
	// Fill to just under the limit with comment lines, then put a rule
	// across the limit and one past it.
	filler := strings.Repeat("# "+strings.Repeat("x", 97)+"\n", (MaxBytes-len(head))/100)
	body := head + filler
	body += strings.Repeat("#", MaxBytes-len(body)-1) + "\n" // exactly MaxBytes so far
	within := Parse([]byte(body + "Disallow: /past\n"))
	if got := len(within.Groups[0].Rules); got != 1 {
		t.Fatalf("rule past the limit read: got %d rules, want 1", got)
	}
	// A line that straddles the limit is not read at all.
	body2 := head + filler
	body2 += strings.Repeat("#", MaxBytes-len(body2)-20) + "\n"
	cut := body2 + "Disallow: /straddling-the-limit\n"
	if len(cut) <= MaxBytes || len(body2) > MaxBytes {
		t.Fatalf("test setup: line does not straddle the limit")
	}
	if got := Parse([]byte(cut)).Groups[0].Rules; len(got) != 1 || got[0].Pattern != "/in" {
		t.Errorf("straddling line: got rules %v, want only /in", got)
	}
	// A line that ends exactly at the limit is whole, whatever follows.
	edge := head + filler
	edge += strings.Repeat("#", MaxBytes-len(edge)-len("\nDisallow: /edge")) + "\nDisallow: /edge"
	if len(edge) != MaxBytes {
		t.Fatalf("test setup: %d bytes", len(edge))
	}
	for _, tail := range []string{"", "\n", "\r\n", "\nDisallow: /past"} {
		got := Parse([]byte(edge + tail)).Groups[0].Rules
		if len(got) != 2 || got[1].Pattern != "/edge" {
			t.Errorf("line ending at the limit, followed by %q: got rules %v, want /in and /edge", tail, got)
		}
	}
	// One line longer than the limit: nothing is read.
	if got := Parse([]byte("User-agent: *\rDisallow: /" + strings.Repeat("a", MaxBytes))); len(got.Groups) != 1 || len(got.Groups[0].Rules) != 0 {
		t.Errorf("overlong last line: got %+v, want the group without the rule", got.Groups)
	}
	// Read applies the same limit to a stream.
	r, err := Read(strings.NewReader(body + "Disallow: /past\n"))
	if err != nil {
		t.Fatal(err)
	}
	if got := len(r.Groups[0].Rules); got != 1 {
		t.Errorf("Read: rule past the limit read: got %d rules, want 1", got)
	}
}

func TestLint(t *testing.T) {
	in := "Disallow: /early\n" + // 1
		"User-agent: *\n" + // 2
		"disalow: /typo\n" + // 3
		"Allow /nocolon\n" + // 4
		"Crawl-delay: soon\n" + // 5
		"Host: example.com\n" + // 6
		"Disallow: private\n" + // 7
		"this line is junk\n" + // 8
		"User-agent: 123\n" + // 9
		"Content-Signal: ai-train=maybe, search=yes\n" + // 10
		"Sitemap:\n" + // 11
		"Sitemap: /sitemap.xml\n" + // 12
		"Sitemap: https://example.com/sitemap.xml\n" + // 13
		"User-agent: a\n" + // 14, in the group of line 9: no rule came between
		"Crawl-delay: 5\n" + // 15
		"Disallow: /x\n" + // 16
		"Crawl-delay: 10\n" + // 17
		"User-agent: b\n" + // 18
		"Crawl-delay: 5\n" // 19: a group of its own
	got := Lint([]byte(in))
	wantLines := []int{1, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 17}
	var gotLines []int
	for _, p := range got {
		gotLines = append(gotLines, p.Line)
	}
	if diff := cmp.Diff(wantLines, gotLines); diff != "" {
		t.Fatalf("Lint lines mismatch (-want +got):\n%s\n%v", diff, got)
	}
	for _, want := range []struct {
		line int
		sub  string
	}{
		{1, "before any User-agent"},
		{3, "misspelt"},
		{4, "missing colon"},
		{5, "crawl-delay"},
		{6, "unknown field"},
		{7, "matches no URL"},
		{8, "not a field"},
		{9, "no product token"},
		{10, "ai-train=maybe"},
		{11, "empty sitemap"},
		{12, `sitemap "/sitemap.xml" is not an absolute URL`},
		{17, "another crawl-delay in the group of line 9 (the first at line 15)"},
	} {
		found := false
		for _, p := range got {
			if p.Line == want.line && strings.Contains(p.Message, want.sub) {
				found = true
			}
		}
		if !found {
			t.Errorf("Lint: no problem at line %d mentioning %q; got %v", want.line, want.sub, got)
		}
	}
	// A line of many bad pairs is one problem, not one per pair.
	many := "User-agent: *\nContent-Signal: x=yes," + strings.Repeat("a=m,", 10_000) + "\n"
	if got := Lint([]byte(many)); len(got) != 1 || !strings.Contains(got[0].Message, "10000 content-signal pairs") {
		t.Errorf("Lint(10000 bad pairs) = %d problems, want 1", len(got))
	}
	if got := Lint([]byte("User-agent: *\nDisallow: /\n")); len(got) != 0 {
		t.Errorf("Lint(clean file) = %v, want nothing", got)
	}
	long := "User-agent: *\nDisallow: /a\n" + strings.Repeat("#\n", MaxBytes/2)
	got = Lint([]byte(long))
	// The first two lines take 27 bytes; the "#" lines that follow end
	// at odd offsets, so one ends exactly at the limit and is read whole.
	wantLine := 2 + (MaxBytes-27)/2 + 2
	if len(got) != 1 || !strings.Contains(got[0].Message, "limit") || got[0].Line != wantLine {
		t.Errorf("Lint(over limit) = %v, want one limit problem at line %d", got, wantLine)
	}
}
