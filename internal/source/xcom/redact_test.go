package xcom

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/heedhq/heed/internal/source"
	"github.com/heedhq/heed/internal/source/sourcetest"
)

// An API that echoes only part of the token (as many gateways do:
// "invalid token AAAAAAAAAAAA…"), or the token percent-decoded.
func TestPartialEchoRedacted(t *testing.T) {
	for name, echo := range map[string]string{
		"prefix":  "the token " + token[:30] + "… is not valid",
		"suffix":  "the token …" + token[20:] + " is not valid",
		"middle":  "the token …" + token[10:18] + "… is not valid",
		"encoded": "the token " + url.QueryEscape(token[5:25]+"/+= ") + " is not valid",
	} {
		a := newXAPI(t, 3)
		a.hook = func(w http.ResponseWriter, r *http.Request) bool {
			problem(w, 403, "Forbidden", echo)
			return true
		}
		e := sourcetest.NewEnv(t)
		reg := &source.Registry{Kinds: []source.Kind{Kind{APIBase: a.URL, Token: token}}}
		_, err := reg.Ingest(t.Context(), e.Env, "x", source.Input{Name: "hm", URL: "https://x.com/harbourmaster"})
		if err == nil {
			t.Fatal("no error")
		}
		if leak := leaked(err.Error()); leak != "" {
			t.Errorf("%s: the error holds %q of the token: %s", name, leak, err)
		}
	}
	// A token in X's real form (percent-encoded base64), echoed decoded,
	// whole and in part.
	real := "AAAAAAAAAAAAAAAAAAAAAMLheAAAAAAA0%2BuSeid%2BULvsea4JtiGRiSDSJSI%3DEUifiRBkKG5E2XzMDjRfl76ZC9Ub0wnz4XsNiRVBChTYbJcE3F"
	dec, _ := url.QueryUnescape(real)
	a := newXAPI(t, 3)
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		problem(w, 401, "Unauthorized", "bad credentials: "+strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")+" (decoded "+dec+", or "+dec[30:50]+")")
	})
	a.Config.Handler = h
	e := sourcetest.NewEnv(t)
	reg := &source.Registry{Kinds: []source.Kind{Kind{APIBase: a.URL, Token: real}}}
	_, err := reg.Ingest(t.Context(), e.Env, "x", source.Input{Name: "hm", URL: "https://x.com/harbourmaster"})
	if err == nil {
		t.Fatal("no error")
	}
	for i := 0; i+8 <= len(dec); i++ {
		if strings.Contains(err.Error(), dec[i:i+8]) {
			t.Errorf("decoded token: the error holds %q: %s", dec[i:i+8], err)
			break
		}
	}
}

// Any 8 bytes of the token are taken out, and only those runs.
func TestRedactPieces(t *testing.T) {
	r := redactor(token)
	for in, want := range map[string]string{
		"a " + token[3:11] + " b":                      "a [redacted] b",
		"a " + token[:7] + " b":                        "a " + token[:7] + " b",
		token[40:] + " and " + token[:9]:               "[redacted] and [redacted]",
		"x" + url.QueryEscape(token)[2:12] + "y":       "x[redacted]y",
		"nothing of it here, though it is long enough": "nothing of it here, though it is long enough",
	} {
		if got := r.text(in); got != want {
			t.Errorf("text(%q) = %q, want %q", in, got, want)
		}
	}
}
