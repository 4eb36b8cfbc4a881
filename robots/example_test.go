package robots_test

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/heedhq/heed/robots"
)

func ExampleParse() {
	r := robots.Parse([]byte(`User-agent: *
Disallow: /private/
Allow: /private/press/
Crawl-delay: 2

Sitemap: https://example.com/sitemap.xml
`))
	for _, u := range []string{"https://example.com/private/x", "https://example.com/private/press/q3", "https://example.com/"} {
		fmt.Println(r.Allowed("ExampleBot/1.0", u))
	}
	delay, _ := r.CrawlDelay("ExampleBot/1.0")
	fmt.Println(delay, r.Sitemaps)
	// Output:
	// disallowed by line 2 "Disallow: /private/" (group "User-agent: *" at line 1)
	// allowed by line 3 "Allow: /private/press/" (group "User-agent: *" at line 1)
	// allowed: no rule matches (group "User-agent: *" at line 1)
	// 2s [https://example.com/sitemap.xml]
}

func ExampleRobots_Format() {
	r := &robots.Robots{
		Groups: []robots.Group{{
			Agents:  []string{"*"},
			Rules:   []robots.Rule{robots.NewRule(robots.Allow, "/"), robots.NewRule(robots.Disallow, "/cms")},
			Signals: robots.Signals{robots.SignalSearch: true, robots.SignalAIInput: true, robots.SignalAITrain: false},
		}},
		Sitemaps: []string{"https://example.com/sitemap.xml"},
	}
	r.Format(os.Stdout)
	// Output:
	// User-agent: *
	// Allow: /
	// Disallow: /cms
	// Content-Signal: ai-input=yes, ai-train=no, search=yes
	//
	// Sitemap: https://example.com/sitemap.xml
}

func ExampleOutcomeOf() {
	for _, status := range []int{200, 404, 503} {
		o := robots.OutcomeOf(status, []byte("User-agent: *\nDisallow: /tmp/\n"), nil)
		fmt.Printf("%d: %s for %v: %s\n", status, o.Status, o.Lifetime, o.Allowed("heed", "https://example.com/tmp/x"))
	}
	// Output:
	// 200: parsed for 24h0m0s: disallowed by line 2 "Disallow: /tmp/" (group "User-agent: *" at line 1)
	// 404: unavailable for 24h0m0s: allowed: robots.txt unavailable (HTTP 404), which allows everything (RFC 9309 §2.3.1.3)
	// 503: unreachable for 1h0m0s: disallowed: robots.txt unreachable (HTTP 503), which disallows everything (RFC 9309 §2.3.1.4)
}

func ExampleCache() {
	// The loader is where a real crawler fetches robots.txt through its
	// HTTP client; this one serves a file from memory.
	load := func(ctx context.Context, robotsURL string) (robots.Outcome, error) {
		fmt.Println("loading", robotsURL)
		return robots.OutcomeOf(200, []byte("User-agent: *\nDisallow: /search\nCrawl-delay: 1.5\n"), nil), nil
	}
	policy := robots.NewCache(load, robots.CacheConfig{})
	ctx := context.Background()
	for _, u := range []string{"https://example.com/search?q=a", "https://example.com/docs"} {
		d, err := policy.Allowed(ctx, "heed", u)
		if err != nil {
			panic(err)
		}
		fmt.Println(u, d.Allowed)
	}
	delay, _ := policy.CrawlDelay(ctx, "heed", "https://example.com/")
	fmt.Println(delay == 1500*time.Millisecond)
	// Output:
	// loading https://example.com/robots.txt
	// https://example.com/search?q=a false
	// https://example.com/docs true
	// true
}
