package textdiff

import "testing"

// FuzzWords: the word diff of any two texts reads back as both, its
// parts hold as many words as Count says, and the unified diff patches
// the old text into the new; and so when the comparison's bounds are so
// tight that most of it is cut short.
//
//	go test -run '^$' -fuzz FuzzWords ./internal/textdiff
func FuzzWords(f *testing.F) {
	for _, c := range [][2]string{
		{"the cat sat", "the dog sat"},
		{"a\nb\nc\n", "a\nc\n"},
		{"[-x-] {+y+}", "[-x-] {+z+}"},
		{"-\\] [\\\\- +\\}", "-] [- +}"},
		{"東京に行く", "東京で行く"},
		{"a \xff b", "a \xfe\xe6\x9d b"},
		{"", "new\n"},
		{"x  y\r\n\u00a0z", "x y\n z"},
	} {
		f.Add(c[0], c[1])
	}
	f.Fuzz(func(t *testing.T, old, new string) {
		check := func() {
			checkWords(t, old, new)
			d := Lines("old", "new", old, new)
			if got, err := patch(old, d); err != nil || got != new {
				t.Fatalf("Lines(%q, %q) =\n%s\npatches old into %q, %v", old, new, d, got, err)
			}
		}
		check()
		setBounds(t, 40, 0, 2)
		check()
	})
}
