package cli

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"testing"

	"github.com/heedhq/heed/internal/printable"
)

// TestWriteJSONString wants robots check --json's URLs written as
// json.Marshal and printable.JSON write them, and a URL of printable
// ASCII written without an allocation, a query's & included: thousands of
// URLs are written a run.
func TestWriteJSONString(t *testing.T) {
	for _, s := range []string{
		"", "https://example.com/a", "https://example.com/a?b=1&c=2", "/<script>&amp;",
		"&", "<>", "a&", "&a", `q"uote`, `back\\slash`, "tab\there", "caf\u00e9", "\u202ebidi",
		"del\x7f", "bad\xffutf8", "https://example.com/?a=<b>&c='d'",
	} {
		var got bytes.Buffer
		w := bufio.NewWriter(&got)
		if err := writeJSONString(w, s); err != nil {
			t.Fatal(err)
		}
		w.Flush()
		want, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		if want = printable.JSON(want); got.String() != string(want) {
			t.Errorf("writeJSONString(%q) = %s, want %s", s, got.String(), want)
		}
	}
	w := bufio.NewWriterSize(io.Discard, 64<<10)
	if n := testing.AllocsPerRun(100, func() {
		writeJSONString(w, "https://example.com/search?q=tides&page=2&lang=<en>")
	}); n != 0 {
		t.Errorf("writing a URL with & < > made %v allocations, want 0", n)
	}
}
