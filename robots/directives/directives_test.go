package directives

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func intp(n int) *int { return &n }

func TestParse(t *testing.T) {
	tests := []struct {
		in   string
		want []Set
	}{
		{"", nil},
		{"noindex", []Set{{NoIndex: true}}},
		{"NoIndex, NOFOLLOW", []Set{{NoIndex: true, NoFollow: true}}},
		{"noindex,nofollow", []Set{{NoIndex: true, NoFollow: true}}},
		{"noindex nofollow", []Set{{NoIndex: true, NoFollow: true}}},
		{"none", []Set{{NoIndex: true, NoFollow: true}}},
		{"all", []Set{{}}},
		{"index, follow", []Set{{}}},
		{"noarchive, nocache, nosnippet, noimageindex, notranslate", []Set{{NoArchive: true, NoSnippet: true, NoImageIndex: true, NoTranslate: true}}},
		{"max-snippet:20, max-image-preview:large, max-video-preview:-1", []Set{{MaxSnippet: intp(20), MaxImagePreview: "large", MaxVideoPreview: intp(-1)}}},
		{"max-snippet: 0", []Set{{MaxSnippet: intp(0)}}},
		{"max-snippet:50, max-snippet:10", []Set{{MaxSnippet: intp(10)}}},
		{"max-snippet:abc, max-image-preview:huge, max-video-preview:-5", []Set{{Other: []string{"max-snippet:abc", "max-image-preview:huge", "max-video-preview:-5"}}}},
		{"noai, noimageai, indexifembedded", []Set{{Other: []string{"noai", "noimageai", "indexifembedded"}}}},
		{"googlebot: noindex", []Set{{Bot: "googlebot", NoIndex: true}}},
		{"googlebot: noindex, nofollow", []Set{{Bot: "googlebot", NoIndex: true, NoFollow: true}}},
		{"noarchive, googlebot: noindex, otherbot: nofollow, max-snippet:5", []Set{
			{NoArchive: true},
			{Bot: "googlebot", NoIndex: true},
			{Bot: "otherbot", NoFollow: true, MaxSnippet: intp(5)},
		}},
		{"GoogleBot-News: unavailable_after: 2025-07-01", []Set{{Bot: "googlebot-news", UnavailableAfter: time.Date(2025, 7, 1, 0, 0, 0, 0, time.UTC)}}},
		{"otherbot:", []Set{{Bot: "otherbot"}}},
		{"unavailable_after: Friday, 25-Jun-10 15:00:00 PST, noindex", []Set{{
			UnavailableAfter: time.Date(2010, 6, 25, 23, 0, 0, 0, time.UTC), NoIndex: true,
		}}},
		{"unavailable_after: not a date", []Set{{Other: []string{"unavailable_after: not a date"}}}},
		{"unavailable-after: 2025-01-01, noindex", []Set{{UnavailableAfter: time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC), NoIndex: true}}},
		{"unavailable_after: Fri, 25 Jun 2010 15:00 CEST, noindex", []Set{{Other: []string{"unavailable_after: fri, 25 jun 2010 15:00 cest"}, NoIndex: true}}},
		{"max-foo: 5, noindex", []Set{{Other: []string{"max-foo: 5"}, NoIndex: true}}},
		{"Googlebot/2.1: noindex, nofollow", []Set{{Other: []string{"googlebot/2.1: noindex"}, NoFollow: true}}},
		{"unavailable_after: 2010-06-25T15:00:00.5Z", []Set{{UnavailableAfter: time.Date(2010, 6, 25, 15, 0, 0, 5e8, time.UTC)}}},
	}
	for _, tt := range tests {
		got := Parse(tt.in)
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("Parse(%q) mismatch (-want +got):\n%s", tt.in, diff)
		}
	}
}

func TestParseDate(t *testing.T) {
	want := time.Date(2010, 6, 25, 15, 0, 0, 0, time.UTC)
	for _, in := range []string{
		"2010-06-25T15:00:00Z",
		"2010-06-25T15:00:00+00:00",
		"2010-06-25T17:00:00+02:00",
		"2010-06-25T15:00:00",
		"2010-06-25T15:00Z",
		"2010-06-25 15:00:00",
		"25 Jun 2010 15:00:00 GMT",
		"25 Jun 2010 08:00:00 PDT",
		"25 Jun 2010 07:00:00 PST",
		"25 Jun 10 10:00 EST",
		"25 Jun 2010 15:00:00 +0000",
		"Fri, 25 Jun 2010 15:00:00 GMT",
		"Fri, 25 Jun 2010 16:00:00 +0100",
		"Friday, 25-Jun-10 15:00:00 GMT",
		"Friday, 25-Jun-10 09:00:00 MDT",
		"Fri, 25 Jun 2010 15:00 GMT",
		"Fri, 25 Jun 2010 15:00 +0000",
		"25 Jun 10 08:00:00 -0700",
		"25 Jun 2010 15:00:00 UT",
		"25 Jun 2010 15:00 Z",
		"2010-06-25T16:00:00+0100",
		"2010-06-25T15:00:00.000Z",
	} {
		got, ok := parseDate(in)
		if !ok || !got.Equal(want) {
			t.Errorf("parseDate(%q) got %v, %v, want %v", in, got, ok, want)
		}
	}
	if got, ok := parseDate("2010-06-25"); !ok || !got.Equal(time.Date(2010, 6, 25, 0, 0, 0, 0, time.UTC)) {
		t.Errorf("parseDate(date only) got %v, %v", got, ok)
	}
	for _, bad := range []string{"", "tomorrow", "2010-13-01", "32 Jun 2010 15:00:00 GMT",
		"25 Jun 2010 15:00:00 CEST", "25 Jun 2010 15:00:00 BST", "25 Jun 2010 15:00:00 IST"} {
		if got, ok := parseDate(bad); ok {
			t.Errorf("parseDate(%q) got %v, want failure", bad, got)
		}
	}
}

func TestParseMeta(t *testing.T) {
	if diff := cmp.Diff([]Set{{NoIndex: true}}, ParseMeta("ROBOTS", "noindex")); diff != "" {
		t.Errorf("robots meta (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]Set{{Bot: "heed", NoFollow: true}}, ParseMeta("heed", "nofollow")); diff != "" {
		t.Errorf("heed meta (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]Set{{Bot: "googlebot", NoSnippet: true}}, ParseMeta(" GoogleBot ", "nosnippet")); diff != "" {
		t.Errorf("googlebot meta (-want +got):\n%s", diff)
	}
}

func TestFor(t *testing.T) {
	early := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	late := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	sets := []Set{
		{NoArchive: true, MaxSnippet: intp(-1), MaxImagePreview: "large", UnavailableAfter: late},
		{Bot: "heed", NoIndex: true, MaxSnippet: intp(50), MaxImagePreview: "standard", Other: []string{"noai"}},
		{Bot: "googlebot", NoFollow: true, MaxSnippet: intp(0), MaxImagePreview: "none", UnavailableAfter: early},
		{Bot: "Heed", MaxSnippet: intp(80), MaxVideoPreview: intp(10), UnavailableAfter: early.Add(time.Hour), Other: []string{"noai", "noimageai"}},
		// Later but less restrictive values do not win.
		{Bot: "heed", MaxImagePreview: "large", MaxVideoPreview: intp(-1), UnavailableAfter: late.Add(time.Hour)},
	}
	got := For("heed/0.1 (+https://example.com)", sets...)
	want := Set{
		NoArchive: true, NoIndex: true, MaxSnippet: intp(50), MaxImagePreview: "standard",
		MaxVideoPreview: intp(10), UnavailableAfter: early.Add(time.Hour), Other: []string{"noai", "noimageai"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("For(heed) mismatch (-want +got):\n%s", diff)
	}
	got = For("otherbot", sets...)
	want = Set{NoArchive: true, MaxSnippet: intp(-1), MaxImagePreview: "large", UnavailableAfter: late}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("For(otherbot) mismatch (-want +got):\n%s", diff)
	}
	if got := For("heed"); !got.IsZero() {
		t.Errorf("For with no sets got %+v, want nothing", got)
	}
	// Merging never aliases the inputs.
	a := Set{Other: make([]string, 1, 4)}
	a.Other[0] = "x"
	m := Merge(a, Set{Other: []string{"y"}})
	m.Other[0] = "changed"
	if a.Other[0] != "x" {
		t.Errorf("Merge wrote through to its input")
	}
}

func TestString(t *testing.T) {
	tests := []struct {
		set      Set
		str, exp string
	}{
		{Set{}, "", "index, follow"},
		{Set{NoIndex: true}, "noindex", "noindex, follow"},
		{Set{NoIndex: true, NoFollow: true}, "noindex, nofollow", "noindex, nofollow"},
		{Set{Bot: "googlebot", NoSnippet: true, MaxSnippet: intp(0)}, "googlebot: nosnippet, max-snippet:0", "googlebot: index, follow, nosnippet, max-snippet:0"},
		{Set{Bot: "otherbot"}, "otherbot:", "otherbot: index, follow"},
		{
			Set{MaxImagePreview: "none", MaxVideoPreview: intp(-1), UnavailableAfter: time.Date(2025, 7, 1, 12, 0, 0, 0, time.FixedZone("X", 3600)), Other: []string{"noai"}},
			"max-image-preview:none, max-video-preview:-1, unavailable_after: 2025-07-01T11:00:00Z, noai",
			"index, follow, max-image-preview:none, max-video-preview:-1, unavailable_after: 2025-07-01T11:00:00Z, noai",
		},
	}
	for _, tt := range tests {
		if got := tt.set.String(); got != tt.str {
			t.Errorf("String() got %q, want %q", got, tt.str)
		}
		if got := tt.set.Explicit(); got != tt.exp {
			t.Errorf("Explicit() got %q, want %q", got, tt.exp)
		}
		back := Parse(tt.set.String())
		want := tt.set
		want.UnavailableAfter = want.UnavailableAfter.UTC()
		if tt.set.IsZero() && tt.set.Bot == "" {
			if len(back) != 0 {
				t.Errorf("Parse(%q) got %v, want nothing", tt.set.String(), back)
			}
			continue
		}
		if len(back) != 1 {
			t.Errorf("Parse(%q) got %d sets, want 1", tt.set.String(), len(back))
			continue
		}
		if diff := cmp.Diff(want, back[0]); diff != "" {
			t.Errorf("Parse(String()) mismatch (-want +got):\n%s", diff)
		}
	}
}
