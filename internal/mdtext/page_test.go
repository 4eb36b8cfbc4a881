package mdtext

import (
	"strings"
	"testing"
)

// A document's page markers are left out of what it says, and a
// snippet says the page of the first passage that matches: not the
// page of a marker inside code, which is the code's text.
func TestSnippetPage(t *testing.T) {
	md := PageMarker(1) + "\n\n# Tides\n\nThe moon pulls.\n\n" + PageMarker(2) + "\n\n```\n<!-- page 9 -->\nspring\n```\n\n" + PageMarker(3) + "\n\nSpring tides are the highest.\n"
	if said := Said(md); strings.Contains(said, "<!-- page 1") || strings.Contains(said, "<!-- page 3") || !strings.Contains(said, "<!-- page 9 -->") {
		t.Errorf("Said kept a marker, or dropped code:\n%s", said)
	}
	s, m, page := SnippetPage(md, Terms("highest"))
	if page != 3 || len(m) != 1 || !strings.Contains(s, "highest") {
		t.Errorf("snippet %q %v on page %d, want page 3", s, m, page)
	}
	if _, m, page := SnippetPage(md, Terms("spring")); page != 2 || len(m) != 1 {
		t.Errorf("code's spring: page %d %v, want page 2", page, m)
	}
	if _, _, page := SnippetPage(md, Terms("nowhere")); page != 1 {
		t.Errorf("no match: page %d, want the first", page)
	}
	if _, _, page := SnippetPage("# Tides\n\nNo pages here.", Terms("pages")); page != 0 {
		t.Errorf("a web page: page %d, want 0", page)
	}
}
