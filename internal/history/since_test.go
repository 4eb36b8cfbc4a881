package history

import (
	"strings"
	"testing"
	"time"
)

func TestParseSince(t *testing.T) {
	now := time.Date(2026, 12, 7, 10, 30, 0, 0, time.UTC)
	for _, c := range []struct {
		in   string
		want time.Time
	}{
		{"2026-12-01", time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)},
		{"2026-12-01T09:00:00Z", time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)},
		{"2026-12-01T09:00:00+02:00", time.Date(2026, 12, 1, 7, 0, 0, 0, time.UTC)},
		{"7d", now.AddDate(0, 0, -7)},
		{"0d", now},
		{"36h", now.Add(-36 * time.Hour)},
		{"90m", now.Add(-90 * time.Minute)},
		{DefaultSince, now.AddDate(0, 0, -7)},
	} {
		got, err := ParseSince(c.in, now)
		if err != nil || !got.Equal(c.want) {
			t.Errorf("ParseSince(%q) = %v, %v; want %v", c.in, got, err, c.want)
		}
	}
	for _, in := range []string{"", "yesterday", "-7d", "-36h", "7", "7 d", "99999999d", "2026-13-01", strings.Repeat("9", 10_000) + "d", "\x1b[31mred"} {
		_, err := ParseSince(in, now)
		if err == nil {
			t.Errorf("ParseSince(%.40q): no error", in)
			continue
		}
		if msg := err.Error(); len(msg) > 300 || !strings.Contains(msg, "is no time") || strings.Contains(msg, "\x1b") {
			t.Errorf("ParseSince(%.40q): %q; want a short error saying what it takes", in, msg)
		}
	}
}
