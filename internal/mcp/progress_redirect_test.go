package mcp

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestProgressOfRedirects: a crawl whose links all redirect to another
// origin makes max_pages requests and stops at the limit, and its
// progress says so: each redirect is a request. (It said 1 of 10, the
// one page stored.)
func TestProgressOfRedirects(t *testing.T) {
	for _, sameOrigin := range []bool{false} {
		other := newSite(t)
		a := newSite(t)
		var links []string
		for i := range 20 {
			links = append(links, fmt.Sprintf("/r%d", i))
		}
		start := html("Start", []string{"The start page of a site whose links all redirect."}, links...)
		a.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			switch p := r.URL.Path; {
			case p == "/":
				fmt.Fprint(w, start)
			case strings.HasPrefix(p, "/r") && !sameOrigin:
				http.Redirect(w, r, other.URL+p, http.StatusFound)
			case strings.HasPrefix(p, "/r"):
				http.Redirect(w, r, "/t"+p, http.StatusFound)
			case strings.HasPrefix(p, "/t/"):
				fmt.Fprint(w, html("Target "+p, []string{"A target page with words enough to be content " + p}))
			default:
				http.NotFound(w, r)
			}
		})
		s := newServer(t, Limits{MaxPages: 10}, loopback)
		var progress progressLog
		cs := connect(t, s, &progress)
		ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
		res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "web_crawl", Arguments: map[string]any{"url": a.URL + "/"}, Meta: sdk.Meta{"progressToken": "r"}})
		cancel()
		if err != nil {
			t.Fatal(err)
		}
		var out CrawlOutput
		text, _ := decode(t, res, &out)
		if out.Skipped["limit"] == 0 {
			t.Fatalf("the crawl did not stop at max_pages: %s", text)
		}
		events := drained(t, cs, &progress, a.URL+"/")
		last := events[len(events)-1]
		if last.Progress != last.Total {
			t.Errorf("same origin %v: a crawl that stopped at max_pages 10 last said %v of %v (%q)", sameOrigin, last.Progress, last.Total, last.Message)
		}
	}
}
