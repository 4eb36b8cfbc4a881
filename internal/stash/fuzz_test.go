package stash

import (
	"context"
	"errors"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/heedhq/heed"
	"github.com/heedhq/heed/internal/mdtext"
)

// FuzzSearch: whatever a person types is a query the index takes (or an
// empty or too-long one, said so), and a snippet of any body for it shows
// none of the index's own separators.
func FuzzSearch(f *testing.F) {
	s, err := Open(context.Background(), f.TempDir())
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { s.Close() })
	body := "東京都に住んでいます。Tides rise and fall. 서울에서 만나요. 北京。大学"
	if _, err := s.Put(context.Background(), snap("https://e.com/a", "Tides", body)); err != nil {
		f.Fatal(err)
	}
	for _, seed := range []string{"tide", `"spring tides"`, "wav*", "東京", "北京。大学", "AND OR NOT", "\"", "*", "서울 에서", "a\u200bb", "\ue000", "NEAR(a b)", "title:x", "-x", "^x"} {
		f.Add(seed, body)
	}
	f.Fuzz(func(t *testing.T, query, text string) {
		if _, err := s.Search(context.Background(), heed.Query{Text: query}); err != nil && !errors.Is(err, heed.ErrEmptyQuery) && !errors.Is(err, heed.ErrQueryTooLong) {
			t.Errorf("Search(%q): %v", query, err)
		}
		got, spans := mdtext.Snippet(text, mdtext.Terms(query))
		n := utf8.RuneCountInString(got)
		for i, sp := range spans {
			if sp.Start >= sp.End || sp.End > n || i > 0 && sp.Start < spans[i-1].End {
				t.Errorf("snippet %q: spans %v out of order or of it", got, spans)
				break
			}
		}
		if strings.ContainsRune(got, mdtext.Barrier) && !strings.ContainsRune(text, mdtext.Barrier) {
			t.Errorf("snippet %q shows the index's barrier", got)
		}
	})
}
