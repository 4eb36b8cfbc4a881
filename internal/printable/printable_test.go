package printable

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestLineAndText(t *testing.T) {
	tests := []struct{ in, line, text string }{
		{"plain words, é and 東京", "plain words, é and 東京", "plain words, é and 東京"},
		{"\x1b]0;pwned\x07title", `\x1b]0;pwned\atitle`, `\x1b]0;pwned\atitle`},
		{"\x1b[2J\x1b[H", `\x1b[2J\x1b[H`, `\x1b[2J\x1b[H`},
		{"\x1b]52;c;aGVsbG8=\x07", `\x1b]52;c;aGVsbG8=\a`, `\x1b]52;c;aGVsbG8=\a`},
		{"a\u009b2Jb", `a\u009b2Jb`, `a\u009b2Jb`},
		{"one\ntwo\tthree\r", `one\ntwo\tthree\r`, "one\ntwo\tthree\\r"},
		{"del\x7f", `del\x7f`, `del\x7f`},
		{"evil\u202etxt.exe", `evil\u202etxt.exe`, `evil\u202etxt.exe`},
		{"bad \xff\xc8 utf8", `bad \xff\xc8 utf8`, `bad \xff\xc8 utf8`},
		{"nul\x00", `nul\x00`, `nul\x00`},
	}
	for _, tt := range tests {
		if got := Line(tt.in); got != tt.line {
			t.Errorf("Line(%q) = %q, want %q", tt.in, got, tt.line)
		}
		if got := Text(tt.in); got != tt.text {
			t.Errorf("Text(%q) = %q, want %q", tt.in, got, tt.text)
		}
	}
}

// FuzzLine: whatever the input, the output is valid UTF-8 with no control
// character but (for Text) line feeds and tabs, and Line and Text leave
// safe text as it is.
func FuzzLine(f *testing.F) {
	f.Add("\x1b[31mred\x1b[0m\n\u009b\xff")
	f.Fuzz(func(t *testing.T, s string) {
		for _, lines := range []bool{false, true} {
			out := escape(s, lines)
			if !utf8.ValidString(out) {
				t.Fatalf("escape(%q, %v) = %q: not UTF-8", s, lines, out)
			}
			for _, r := range out {
				if unsafe(r, utf8.RuneLen(r), lines) {
					t.Fatalf("escape(%q, %v) = %q keeps %U", s, lines, out, r)
				}
			}
			if escape(out, lines) != out {
				t.Fatalf("escape is not stable on %q", out)
			}
		}
		if !strings.ContainsFunc(s, func(r rune) bool { return unsafe(r, utf8.RuneLen(r), false) }) && utf8.ValidString(s) && Line(s) != s {
			t.Fatalf("Line changed safe text %q", s)
		}
	})
}

func TestJSON(t *testing.T) {
	in, _ := json.Marshal(map[string]string{"title": "a\u009b2J\x7f\u202eb\x1bc"})
	got := string(JSON(in))
	if want := `{"title":"a\u009b2J\u007f\u202eb\u001bc"}`; got != want {
		t.Errorf("JSON(%s) = %s, want %s", in, got, want)
	}
	var back map[string]string
	if err := json.Unmarshal([]byte(got), &back); err != nil || back["title"] != "a\u009b2J\x7f\u202eb\x1bc" {
		t.Errorf("the escaped JSON reads back as %q, %v", back, err)
	}
}
