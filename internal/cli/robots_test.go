package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/heedhq/heed"
	"github.com/heedhq/heed/robots"
)

const sample = `# sample
User-agent: *
Allow: /docs/
Disallow: /

User-agent: heed
Disallow: /private/
`

// run runs the CLI and returns its exit code, stdout and stderr.
func run(t *testing.T, stdin string, args ...string) (int, string, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code := Run(t.Context(), args, strings.NewReader(stdin), &out, &errOut)
	return code, out.String(), errOut.String()
}

func writeFile(t *testing.T, name, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestRobotsCheck(t *testing.T) {
	file := writeFile(t, "robots.txt", sample)
	tests := []struct {
		name string
		args []string
		code int
		out  string
	}{
		{
			name: "allowed by default agent's group",
			args: []string{"robots", "check", "--file", file, "https://example.com/docs/"},
			code: 0,
			out:  "https://example.com/docs/: allowed: no rule matches (group \"User-agent: heed\" at line 6)\n",
		},
		{
			name: "disallowed exits 1 and names the rule",
			args: []string{"robots", "check", "--file", file, "https://example.com/docs/", "/private/x"},
			code: 1,
			out: "https://example.com/docs/: allowed: no rule matches (group \"User-agent: heed\" at line 6)\n" +
				"/private/x: disallowed by line 7 \"Disallow: /private/\" (group \"User-agent: heed\" at line 6)\n",
		},
		{
			name: "another agent gets the star group",
			args: []string{"robots", "check", "-f", file, "--agent", "OtherBot/1.0", "/docs/a", "/blog"},
			code: 1,
			out: "/docs/a: allowed by line 3 \"Allow: /docs/\" (group \"User-agent: *\" at line 2)\n" +
				"/blog: disallowed by line 4 \"Disallow: /\" (group \"User-agent: *\" at line 2)\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, stderr := run(t, "", tt.args...)
			if code != tt.code || out != tt.out {
				t.Errorf("heed %v: got exit %d\n%s(stderr %q), want exit %d\n%s", tt.args, code, out, stderr, tt.code, tt.out)
			}
		})
	}
}

func TestRobotsCheckJSON(t *testing.T) {
	code, out, _ := run(t, sample, "robots", "check", "--file", "-", "--json", "/private/x", "/docs/")
	if code != 1 {
		t.Errorf("exit %d, want 1", code)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 2 {
		t.Fatalf("got %d lines, want 2:\n%s", len(lines), out)
	}
	var got []map[string]any
	for _, l := range lines {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("line %q: %v", l, err)
		}
		got = append(got, m)
	}
	want := []map[string]any{
		{
			"url": "/private/x", "allowed": false, "reason": "rule",
			"rule":        map[string]any{"kind": "disallow", "pattern": "/private/", "line": float64(7)},
			"group":       map[string]any{"agents": []any{"heed"}, "line": float64(6)},
			"explanation": `disallowed by line 7 "Disallow: /private/" (group "User-agent: heed" at line 6)`,
		},
		{
			"url": "/docs/", "allowed": true, "reason": "no-rule", "rule": nil,
			"group":       map[string]any{"agents": []any{"heed"}, "line": float64(6)},
			"explanation": `allowed: no rule matches (group "User-agent: heed" at line 6)`,
		},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("JSON mismatch (-want +got):\n%s", diff)
	}
}

// A URL is written into --json as JSON, escaped where it must be and as
// json.Marshal escapes it (HTML characters too); control characters are
// escaped, never printed.
func TestRobotsCheckJSONEscapes(t *testing.T) {
	for _, u := range []string{"/plain/a-b_c~d?x=1;y=2", `/q"uote`, `/back\slash`, "/<b>&amp", "/tab\there", "/caf\u00e9", "/\u2028line", "/del\x7f"} {
		code, out, stderr := run(t, sample, "robots", "check", "--file", "-", "--json", u)
		if code > 1 {
			t.Fatalf("%q: exit %d, %s", u, code, stderr)
		}
		var got struct{ URL string }
		if err := json.Unmarshal([]byte(out), &got); err != nil || got.URL != u {
			t.Errorf("%q: printed %q (%v), which is not its JSON", u, out, err)
		}
		if strings.ContainsAny(out[:len(out)-1], "\t\x7f\u2028<>&") {
			t.Errorf("%q: printed %q, with a character unescaped", u, out)
		}
	}
}

func TestRobotsCheckUsage(t *testing.T) {
	file := writeFile(t, "robots.txt", sample)
	for _, tt := range []struct {
		args []string
		msg  string
	}{
		{[]string{"robots", "check", "--file", file}, "no URL"},
		{[]string{"robots", "check", "/x"}, "without --file, URLs must be absolute"},
		{[]string{"robots", "check", "--allow-net", "loopback", "http://127.0.0.1/x"}, "--allow-net"},
		{[]string{"robots", "check", "--file", file, "example.com/x"}, "neither a path starting with / nor an absolute URL"},
		// Against the live robots.txt, a request is sent: credentials
		// are refused, as by every command that sends one.
		{[]string{"robots", "check", "http://admin:hunter2@example.com/x"}, "carries credentials"},
		// A URL whose scheme and authority were not yet read is read,
		// whatever URLs of another authority came before it.
		{[]string{"robots", "check", "http://example.com/a", "http://example.com/b", "http://admin:hunter2@example.com/c"}, "carries credentials"},
		// A password holding a "/" leaves a URL no parser reads alike;
		// no part of the password is quoted.
		{[]string{"robots", "check", "--file", file, "http://admin:hunter2/x@example.com/c"}, "its user or password holds"},
		// A password in a URL that is not read is not printed either.
		{[]string{"robots", "check", "--file", file, "//admin:hunter2@example.com/x"}, "neither a path starting with / nor an absolute URL"},
		{[]string{"robots", "check", "//admin:hunter2@example.com/x"}, "no scheme"},
		{[]string{"robots", "check", "--file", file, "http:/admin:hunter2@example.com/x"}, "neither a path starting with / nor an absolute URL"},
		{[]string{"robots", "check", "--file", filepath.Join(t.TempDir(), "missing"), "/x"}, "no such file"},
		{[]string{"robots", "check", "--bogus", "/x"}, "unknown flag"},
		{[]string{"robots", "fmt", "a", "b"}, "accepts at most 1 arg"},
		{[]string{"robots", "chek", "/x"}, `unknown command "chek"`},
		{[]string{"robots"}, "check, fmt or lint"},
		{[]string{"rbots"}, `unknown command "rbots"`},
	} {
		code, out, stderr := run(t, "", tt.args...)
		if code != 2 || out != "" || !strings.Contains(stderr, tt.msg) {
			t.Errorf("heed %v: got exit %d, stdout %q, stderr %q; want exit 2 and %q", tt.args, code, out, stderr, tt.msg)
		}
		if strings.Contains(stderr, "hunter2") {
			t.Errorf("heed %v: the password is printed: %q", tt.args, stderr)
		}
	}
}

// TestRobotsCheckFileDecidesWhatTheLibraryDecides: against a file,
// nothing is fetched, and a URL is decided on its path and query
// whatever its scheme or authority (ftp's, a port or a host no resolver
// reads), as the robots library decides it; its password is never
// printed.
func TestRobotsCheckFileDecidesWhatTheLibraryDecides(t *testing.T) {
	text := "User-agent: *\nDisallow: /private/\n"
	file := writeFile(t, "robots.txt", text)
	r := robots.Parse([]byte(text))
	for _, u := range []string{
		"ftp://example.com/private/x",
		"ftp://admin:hunter2@example.com/docs/x",
		"http://[::1/private/x",
		"http://[::1/c?next=http://admin:hunter2@example.com/",
		"http://admin:hunter2@example.com:abc/private/x",
		"http://admin:hunter2@/x",
		"http://admin:hunter2@exa mple.com/private/x",
		`https:\\admin:hunter2@example.com/private/x`,
	} {
		want := r.Allowed(heed.UserAgent(), u)
		code, out, stderr := run(t, "", "robots", "check", "--file", file, "--json", u)
		if want.Reason == robots.ReasonBadURL {
			t.Fatalf("%q: the library does not decide it", u)
		}
		var got struct{ Allowed bool }
		if err := json.Unmarshal([]byte(out), &got); err != nil || got.Allowed != want.Allowed || code != map[bool]int{true: 0, false: 1}[want.Allowed] {
			t.Errorf("%q: exit %d, %q %q, want the library's %v", u, code, out, stderr, want)
		}
		if strings.Contains(out+stderr, "hunter2") {
			t.Errorf("%q: the password is printed: %q %q", u, out, stderr)
		}
	}
}

// A regression test: before the fix, heed robots check --file refused
// URLs over 8 KiB and URLs with a user or password, though it fetches
// nothing. It decides any URL the library decides, on its path and query,
// as the library does: Google's suite's 16 KB URL, a peer suite's
// userinfo URL, an adversarial 100 KB path; and it never prints a
// password, in text or JSON.
func TestRobotsCheckAnyURLTheLibraryDecides(t *testing.T) {
	text := "User-agent: *\nDisallow: /path;params?query\nDisallow: /private/\nAllow: /*a$\n"
	file := writeFile(t, "robots.txt", text)
	r := robots.Parse([]byte(text))
	for _, u := range []string{
		"http://example.com/private/" + strings.Repeat("a", 16<<10),
		"http://example.com/" + strings.Repeat("a", 16<<10),
		"/private/" + strings.Repeat("a", 100_000),
		"http://example.com/" + strings.Repeat("a", 100_000) + "b",
		"http://userinfo@example.com:10/path;params?query#fragment",
		"http://user:hunter2@example.com:10/path;params?query#fragment",
		"https://user:hunter2@example.com/public",
	} {
		want := r.Allowed("heed", u)
		wantCode := 0
		if !want.Allowed {
			wantCode = 1
		}
		shown := strings.Replace(strings.Replace(u, "userinfo@", "", 1), "user:hunter2@", "", 1)
		code, out, stderr := run(t, "", "robots", "check", "--file", file, u)
		if code != wantCode || out != shown+": "+want.String()+"\n" || stderr != "" {
			t.Errorf("heed robots check %.60q: exit %d, %.200q (stderr %q), want exit %d, %.60q: %s", u, code, out, stderr, wantCode, shown, want)
		}
		code, out, stderr = run(t, "", "robots", "check", "--file", file, "--json", u)
		var got struct {
			URL         string
			Allowed     bool
			Explanation string
		}
		if err := json.Unmarshal([]byte(out), &got); err != nil || code != wantCode || got.URL != shown || got.Allowed != want.Allowed || got.Explanation != want.String() {
			t.Errorf("heed robots check --json %.60q: exit %d, %.200q (%v, stderr %q)", u, code, out, err, stderr)
		}
		for _, printed := range []string{out, stderr} {
			if strings.Contains(printed, "hunter2") || strings.Contains(printed, "userinfo") {
				t.Errorf("heed robots check %.60q prints the user or password: %.200q", u, printed)
			}
		}
	}
}

// heed robots check takes every URL the library matches, as written: a
// stray "%" in a path, a Unicode host; and decides as the library does.
func TestRobotsCheckAgreesWithLibrary(t *testing.T) {
	text := "User-agent: *\nDisallow: /p1%xy\nDisallow: /%a%a\nDisallow: /secret.html\n"
	file := writeFile(t, "robots.txt", text)
	r := robots.Parse([]byte(text))
	for _, u := range []string{
		"http://example.com/p1%xy", "/p1%xy", "http://example.com/%a%a", "/%a%a",
		"http://www.münich.com/secret.html", "http://www.xn--mnich-kva.com/secret.html", "/public",
	} {
		want := 0
		if !r.Allowed("heed", u).Allowed {
			want = 1
		}
		code, out, stderr := run(t, "", "robots", "check", "--file", file, u)
		if code != want || stderr != "" {
			t.Errorf("heed robots check %s: exit %d (%q, %q), want %d as the library decides", u, code, out, stderr, want)
		}
	}
	if code, _, _ := run(t, "", "robots", "check", "--file", file, "http://www.münich.com/secret.html"); code != 1 {
		t.Errorf("a Unicode host's disallowed path: exit %d, want 1", code)
	}
}

func TestRobotsCheckLive(t *testing.T) {
	var robotsHits int
	mux := http.NewServeMux()
	mux.HandleFunc("/robots.txt", func(w http.ResponseWriter, r *http.Request) {
		robotsHits++
		fmt.Fprint(w, sample)
	})
	s := httptest.NewServer(mux)
	defer s.Close()
	down := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusInternalServerError)
	}))
	defer down.Close()

	code, out, stderr := run(t, "", "robots", "check", "--allow-net", "127.0.0.1/32", s.URL+"/docs/", s.URL+"/private/x")
	want := s.URL + "/docs/: allowed: no rule matches (group \"User-agent: heed\" at line 6)\n" +
		s.URL + "/private/x: disallowed by line 7 \"Disallow: /private/\" (group \"User-agent: heed\" at line 6)\n"
	if code != 1 || out != want {
		t.Errorf("live check: exit %d\n%s(stderr %q), want exit 1\n%s", code, out, stderr, want)
	}
	if robotsHits != 1 {
		t.Errorf("robots.txt fetched %d times for one origin, want 1", robotsHits)
	}
	// A URL's path is not requested: one of 16 KB is decided.
	long := s.URL + "/private/" + strings.Repeat("a", 16<<10)
	code, out, stderr = run(t, "", "robots", "check", "--allow-net", "127.0.0.1/32", long)
	if code != 1 || out != long+": disallowed by line 7 \"Disallow: /private/\" (group \"User-agent: heed\" at line 6)\n" {
		t.Errorf("live check of a 16 KB URL: exit %d, %.100q (stderr %q)", code, out, stderr)
	}
	code, out, _ = run(t, "", "robots", "check", "--allow-net", "127.0.0.1/32", down.URL+"/a")
	if code != 1 || !strings.Contains(out, "unreachable (HTTP 500)") {
		t.Errorf("5xx robots.txt: exit %d, %q; want exit 1, unreachable", code, out)
	}
	code, out, stderr = run(t, "", "robots", "check", s.URL+"/docs/")
	if code != 2 || out != "" || !strings.Contains(stderr, "loopback") || !strings.Contains(stderr, "--allow-net 127.0.0.0/8") {
		t.Errorf("refused robots.txt: exit %d, out %q, stderr %q; want exit 2 naming the rule and the opt-in", code, out, stderr)
	}
}

func TestRobotsFmt(t *testing.T) {
	in := "user-agent: a\r\ndisalow /x # no\r\nSitemap: https://example.com/s.xml\r\nHost: h\r\n"
	code, out, _ := run(t, in, "robots", "fmt")
	want := "User-agent: a\nDisallow: /x\n\nSitemap: https://example.com/s.xml\n\nhost: h\n"
	if code != 0 || out != want {
		t.Errorf("robots fmt: got exit %d\n%q, want\n%q", code, out, want)
	}
	file := writeFile(t, "robots.txt", in)
	if code, out2, _ := run(t, "", "robots", "fmt", file); code != 0 || out2 != want {
		t.Errorf("robots fmt FILE: got exit %d\n%q", code, out2)
	}
}

func TestRobotsLint(t *testing.T) {
	in := "Disallow: /x\nUser-agent: *\ndisalow: /y\nFoo: bar\n"
	file := writeFile(t, "robots.txt", in)
	code, out, _ := run(t, "", "robots", "lint", file)
	if code != 1 {
		t.Errorf("exit %d, want 1", code)
	}
	for _, want := range []string{file + ":1: Disallow before any User-agent line", file + ":3: misspelt", file + ":4: unknown field"} {
		if !strings.Contains(out, want) {
			t.Errorf("lint output lacks %q:\n%s", want, out)
		}
	}
	code, out, _ = run(t, in, "robots", "lint", "--json")
	if code != 1 || strings.Count(out, "\n") != 3 || !strings.Contains(out, `"line":3`) {
		t.Errorf("lint --json: exit %d\n%s", code, out)
	}
	// A regression test: before the fix, a relative sitemap and a group's
	// second Crawl-delay went unreported.
	in = "User-agent: *\nCrawl-delay: 5\nDisallow: /x\nCrawl-delay: 10\nSitemap: /sitemap.xml\n"
	code, out, _ = run(t, in, "robots", "lint")
	for _, want := range []string{"<stdin>:4: another crawl-delay in the group of line 1 (the first at line 2)", `<stdin>:5: sitemap "/sitemap.xml" is not an absolute URL`} {
		if code != 1 || !strings.Contains(out, want) {
			t.Errorf("lint: exit %d, output lacks %q:\n%s", code, want, out)
		}
	}
	if code, out, _ := run(t, "User-agent: *\nCrawl-delay: 5\nDisallow: /\nSitemap: https://example.com/s.xml\nUser-agent: b\nCrawl-delay: 5\n", "robots", "lint"); code != 0 || out != "" {
		t.Errorf("clean file: exit %d, output %q", code, out)
	}
}

func TestVersion(t *testing.T) {
	code, out, _ := run(t, "", "--version")
	if code != 0 || !strings.HasPrefix(out, "heed ") {
		t.Errorf("--version: exit %d, %q", code, out)
	}
}

// heed robots check reads each argument as one URL: a password holding a
// space, a quote, "<", ">" or a line end is never printed, in text, JSON
// or an error.
func TestRobotsCheckPasswordOfAnyCharacter(t *testing.T) {
	file := writeFile(t, "robots.txt", sample)
	for _, u := range []string{
		"http://admin:hunter2 x@example.com/x", `http://admin:hunter2"x@example.com/x`,
		"http://admin:<hunter2>@example.com/x", "http://admin:hunter2\nx@example.com/x",
		"http://admin:hunter2\tx@example.com/x", "http://admin:hunter2 x@example.com",
	} {
		for _, args := range [][]string{
			{"robots", "check", "--file", file, u},
			{"robots", "check", "--file", file, "--json", u},
			{"robots", "check", u},
		} {
			_, out, stderr := run(t, "", args...)
			if strings.Contains(out+stderr, "hunter2") {
				t.Errorf("heed %q prints the password: %q, %q", args, out, stderr)
			}
		}
	}
}
