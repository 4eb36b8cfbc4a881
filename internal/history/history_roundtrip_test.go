package history

import (
	"testing"

	"github.com/heedhq/heed"
)

// TestDecodeRoundTrip shows a line history.Decode reads that
// Encode does not write back readable: a time in the first second of
// year 1, which Encode truncates to the zero time that Decode refuses.
// A Put of the page turns the entry into a line it "cannot read".
func TestDecodeRoundTrip(t *testing.T) {
	line := `{"n":1,"at":"0001-01-01T00:00:00.5Z","hash":"` + heed.HashOf("a") + `","size":1}`
	v, err := Decode(line)
	if err != nil {
		t.Skipf("refused: %v", err)
	}
	if _, err := Decode(Encode(v)); err != nil {
		t.Errorf("Decode took %q, but not what Encode writes of it: %v", line, err)
	}
}
