package pdf

import (
	"testing"
	"time"
)

// TestParseDate reads the dates of PDF document information as the
// standard writes them (PDF 32000-1, 7.9.4): as much of the date as is
// there, and its offset from UTC in hours and minutes, in hours alone
// (as Acrobat wrote it, "-08'"), or Z.
func TestParseDate(t *testing.T) {
	for in, want := range map[string]time.Time{
		"D:20230102150405+01'00'": time.Date(2023, 1, 2, 14, 4, 5, 0, time.UTC),
		"D:20230102150405-05'30'": time.Date(2023, 1, 2, 20, 34, 5, 0, time.UTC),
		"D:20230102150405+0100":   time.Date(2023, 1, 2, 14, 4, 5, 0, time.UTC),
		"D:19990209153925-08'":    time.Date(1999, 2, 9, 23, 39, 25, 0, time.UTC),
		"D:19990209153925-08":     time.Date(1999, 2, 9, 23, 39, 25, 0, time.UTC),
		"D:20230102150405Z":       time.Date(2023, 1, 2, 15, 4, 5, 0, time.UTC),
		"D:20230102150405Z00'00'": time.Date(2023, 1, 2, 15, 4, 5, 0, time.UTC),
		"D:20230102150405":        time.Date(2023, 1, 2, 15, 4, 5, 0, time.UTC),
		"D:202301021504":          time.Date(2023, 1, 2, 15, 4, 0, 0, time.UTC),
		"D:20230102":              time.Date(2023, 1, 2, 0, 0, 0, 0, time.UTC),
		"D:2023":                  time.Date(2023, 1, 1, 0, 0, 0, 0, time.UTC),
		"20230102150405+01'00'":   time.Date(2023, 1, 2, 14, 4, 5, 0, time.UTC),
		"":                        {},
		"yesterday":               {},
		"D:20231340":              {},
	} {
		if got := parseDate(in); !got.Equal(want) {
			t.Errorf("parseDate(%q) = %v, want %v", in, got, want)
		}
	}
}
