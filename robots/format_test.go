package robots

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestFormat(t *testing.T) {
	in := "\xEF\xBB\xBFuser-agent: a # first\r\nUSER-AGENT: b\r\ndisalow:/x\r\nallow /y\r\n" +
		"crawl-delay: 1.50\r\nContent-Signal: search=yes, ai-train=NO\r\nCrawl-delay: never\r\n" +
		"Sitemap: https://example.com/s.xml\r\nHost: example.com\r\n\r\n" +
		"User-agent: *\r\nDisallow:\r\n\r\nUser-agent: last\r\n"
	want := `User-agent: a
User-agent: b
Disallow: /x
Allow: /y
Crawl-delay: 1.5
Content-Signal: ai-train=no, search=yes

User-agent: *
Disallow: 

User-agent: last

Sitemap: https://example.com/s.xml

host: example.com
`
	r := Parse([]byte(in))
	if got := r.String(); got != want {
		t.Errorf("Format mismatch (-want +got):\n%s", cmp.Diff(want, got))
	}
	again := Parse([]byte(r.String()))
	if diff := cmp.Diff(withoutLines(r), withoutLines(again), cmpRobots...); diff != "" {
		t.Errorf("Parse(Format(r)) differs from r (-want +got):\n%s", diff)
	}
	if got := (&Robots{}).String(); got != "" {
		t.Errorf("empty file formats as %q, want nothing", got)
	}
}

func TestFormatHandBuilt(t *testing.T) {
	r := &Robots{
		Groups: []Group{{
			Agents:        []string{"*"},
			Rules:         []Rule{NewRule(Allow, "/"), NewRule(Disallow, "/cms")},
			CrawlDelay:    2 * time.Second,
			HasCrawlDelay: true,
			Signals:       Signals{SignalSearch: true, SignalAIInput: true, SignalAITrain: false},
		}},
		Sitemaps: []string{"https://example.com/sitemap.xml"},
	}
	want := "User-agent: *\nAllow: /\nDisallow: /cms\nCrawl-delay: 2\nContent-Signal: ai-input=yes, ai-train=no, search=yes\n\nSitemap: https://example.com/sitemap.xml\n"
	if got := r.String(); got != want {
		t.Errorf("Format mismatch (-want +got):\n%s", cmp.Diff(want, got))
	}
	if d := Parse([]byte(r.String())).Allowed("heed", "/cms/x"); d.Allowed {
		t.Errorf("formatted file allows /cms/x")
	}
}

func TestFormatDelay(t *testing.T) {
	for d, want := range map[time.Duration]string{
		0:                       "0",
		time.Second:             "1",
		1500 * time.Millisecond: "1.5",
		time.Second + 1:         "1.000000001",
		250 * time.Millisecond:  "0.25",
	} {
		if got := formatDelay(d); got != want {
			t.Errorf("formatDelay(%v) got %q, want %q", d, got, want)
		}
		if back, ok := parseDelay(formatDelay(d)); !ok || back != d {
			t.Errorf("parseDelay(formatDelay(%v)) got %v, %v", d, back, ok)
		}
	}
}

// withoutLines returns a copy of r with every line number zeroed, so that
// a file and its formatted form compare equal.
func withoutLines(r *Robots) *Robots {
	c := &Robots{Sitemaps: r.Sitemaps}
	for _, rec := range r.Records {
		rec.Line = 0
		c.Records = append(c.Records, rec)
	}
	for _, g := range r.Groups {
		g.Line = 0
		g.Rules = append([]Rule(nil), g.Rules...)
		for i := range g.Rules {
			g.Rules[i].Line = 0
		}
		c.Groups = append(c.Groups, g)
	}
	return c
}

func TestRuleString(t *testing.T) {
	for _, tt := range []struct {
		r    Rule
		want string
	}{
		{NewRule(Allow, "/a"), "Allow: /a"},
		{NewRule(Disallow, ""), "Disallow: "},
	} {
		if got := tt.r.String(); got != tt.want {
			t.Errorf("String() got %q, want %q", got, tt.want)
		}
	}
	if !strings.Contains(Kind(9).String(), "9") {
		t.Errorf("unknown kind does not name itself")
	}
}
