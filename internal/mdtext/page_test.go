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

// A hit's page is the page that holds the most of the query's words,
// not the first that holds any: "harbour 39" is on the page of harbour
// 39, though every page names a harbour.
func TestSnippetPageMostTerms(t *testing.T) {
	md := PageMarker(1) + "\n\n# The harbours\n\nHarbour number 1 keeps its own gauge.\n\n" +
		PageMarker(2) + "\n\nHarbour number 2 keeps its own gauge.\n\n" +
		PageMarker(3) + "\n\nHarbour number 39 keeps its own gauge, read by the keeper.\n"
	s, m, page := SnippetPage(md, Terms("harbour 39"))
	if page != 3 || len(m) != 2 || !strings.Contains(s, "number 39") {
		t.Errorf("snippet %q %v on page %d, want page 3 with both words", s, m, page)
	}
	if _, _, page := SnippetPage(md, Terms("gauge keeper")); page != 3 {
		t.Errorf("gauge keeper: page %d, want 3", page)
	}
	if _, _, page := SnippetPage(md, Terms("gauge")); page != 1 {
		t.Errorf("gauge: page %d, want the first that has it", page)
	}
}
