package source_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/heedhq/heed/fetch"
	"github.com/heedhq/heed/internal/source"
	"github.com/heedhq/heed/internal/source/sourcetest"
)

// kind matches URLs whose path starts with its name, and answers err.
type kind struct {
	name  string
	err   error
	asked *[]string
}

func (k kind) Name() string { return k.name }
func (k kind) Match(u *url.URL) bool {
	return strings.HasPrefix(u.Path, "/"+k.name) || k.name == "last"
}
func (k kind) Ingest(_ context.Context, _ *source.Env, in source.Input) (*source.Result, error) {
	*k.asked = append(*k.asked, k.name)
	if k.err != nil {
		return nil, k.err
	}
	return &source.Result{Items: in.Limit}, nil
}

func TestRegistryOrder(t *testing.T) {
	var asked []string
	reg := &source.Registry{Kinds: []source.Kind{
		kind{"a", source.NotUsable(errors.New("a found nothing")), &asked},
		kind{"ab", source.NotMine(errors.New("not ab's")), &asked},
		kind{"abc", nil, &asked},
		kind{"last", nil, &asked},
	}}
	e := sourcetest.NewEnv(t)
	res, err := reg.Ingest(t.Context(), e.Env, "", source.Input{Name: "s", URL: "https://example.com/abc"})
	if err != nil || res.Kind != "abc" || res.Items != source.DefaultLimit || res.URL != "https://example.com/abc" {
		t.Fatalf("got %+v, %v", res, err)
	}
	if strings.Join(asked, ",") != "a,ab,abc" {
		t.Errorf("asked %v, want a, ab, abc in order", asked)
	}
	if w := e.Warnings(); len(w) != 1 || w[0] != "a: a found nothing; trying the next kind of source" {
		t.Errorf("warnings got %q, want one from a only", w)
	}
	// A URL no specific kind matches goes to the last.
	asked = nil
	if res, err := reg.Ingest(t.Context(), e.Env, "", source.Input{Name: "s", URL: "https://example.com/zzz"}); err != nil || res.Kind != "last" || len(asked) != 1 {
		t.Errorf("got %+v, %v, asked %v", res, err, asked)
	}
	// Named, a kind is asked alone, and nothing usable is its error.
	asked = nil
	if _, err := reg.Ingest(t.Context(), e.Env, "a", source.Input{Name: "s", URL: "https://example.com/abc"}); err == nil || err.Error() != "a found nothing" || len(asked) != 1 {
		t.Errorf("kind a: %v, asked %v", err, asked)
	}
	for _, bad := range []struct{ kind, url string }{{"nope", "https://example.com/"}, {"", "ftp://example.com/a"}, {"", "/relative"}} {
		if _, err := reg.Ingest(t.Context(), e.Env, bad.kind, source.Input{Name: "s", URL: bad.url}); err == nil {
			t.Errorf("kind %q, URL %q: no error", bad.kind, bad.url)
		}
	}
}

func TestEscape(t *testing.T) {
	for in, want := range map[string]string{
		"plain [link](javascript:x) <b>": `plain \[link\](javascript:x) \<b>`,
		"a\r## b\r\nc\n---\n===":         "a\n\\## b\nc\n\\---\n\\===",
		"   ## b\n\t# c\n    code":       "   \\## b\n\\# c\ncode",
		"1. one\n2) two\n10 ten":         "1\\. one\n2\\) two\n10 ten",
		"```\n~~~\n> q\n+ p\n* s\n_ _ _": "\\```\n\\~~~\n\\> q\n\\+ p\n\\* s\n\\_ _ _",
		"bad \xff utf-8":                 "bad \uFFFD utf-8",
	} {
		if got := source.Escape(in); got != want {
			t.Errorf("Escape(%q) = %q, want %q", in, got, want)
		}
	}
}

// A Retry-After that is an HTTP date is waited out until that date.
func TestRetryAfterDate(t *testing.T) {
	env := sourcetest.NewEnv(t)
	var n atomic.Int32
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if n.Add(1) == 1 {
			w.Header().Set("Retry-After", sourcetest.Start.Add(90*time.Second).Format(http.TimeFormat))
			w.WriteHeader(http.StatusTooManyRequests)
			return
		}
		fmt.Fprint(w, "{}")
	}))
	defer s.Close()
	rl := &source.RateLimiter{Env: env.Env, Service: "a test API"}
	resp, err := rl.Get(t.Context(), fetch.Request{URL: s.URL + "/"})
	if err != nil || resp.Status != 200 {
		t.Fatalf("%v, %v", resp, err)
	}
	if w := env.Waits(); len(w) != 1 || w[0] != 90*time.Second {
		t.Errorf("waited %v, want 90s", w)
	}
}
