package feed

import (
	"net/http"
	"testing"

	"github.com/heedhq/heed/internal/source"
	"github.com/heedhq/heed/internal/source/sourcetest"
)

// robots.txt allows /, which redirects into /private/, which it
// disallows: the probe follows the redirect without asking.
func TestProbeRedirectIntoDisallowed(t *testing.T) {
	s := newSite(t)
	s.set("/robots.txt", page{typ: "text/plain", body: "User-agent: *\nDisallow: /private/\n"})
	s.set("/start", page{status: http.StatusFound, body: ""})
	s.set("/private/page", page{typ: "text/html", body: `<html><head><link rel="alternate" type="application/rss+xml" href="/private/feed.xml"></head></html>`})
	s.Server.Config.Handler = redirecting(s.Server.Config.Handler, "/start", "/private/page")
	env := sourcetest.NewEnv(t)
	reg, _ := registry()
	reg.Ingest(t.Context(), env.Env, "", source.Input{Name: "x", URL: s.URL + "/start"})
	for _, r := range s.requests() {
		if r.URL.Path == "/private/page" {
			t.Errorf("the page robots.txt disallows was fetched through a redirect")
		}
	}
}

func redirecting(h http.Handler, from, to string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == from {
			http.Redirect(w, r, to, http.StatusFound)
			return
		}
		h.ServeHTTP(w, r)
	})
}
