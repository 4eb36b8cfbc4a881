package directives

import (
	"strings"
	"time"
)

// dateLayouts are the forms unavailable_after is written in: ISO 8601
// (RFC 3339 and its common shortenings), RFC 822 and RFC 1123 (with or
// without the weekday, two- or four-digit years, seconds optional), and
// RFC 850.
var dateLayouts = []string{
	time.RFC3339Nano,
	"2006-01-02T15:04Z07:00",
	"2006-01-02T15:04:05",
	"2006-01-02T15:04",
	"2006-01-02 15:04:05Z07:00",
	"2006-01-02 15:04:05",
	"2006-01-02",
	"Mon, 2 Jan 2006 15:04:05 MST",
	"Mon, 2 Jan 2006 15:04:05 -0700",
	"Mon, 2 Jan 06 15:04:05 MST",
	"Mon, 2 Jan 06 15:04 MST",
	"2 Jan 2006 15:04:05 MST",
	"2 Jan 2006 15:04:05 -0700",
	"2 Jan 2006 15:04 MST",
	"2 Jan 06 15:04:05 MST",
	"2 Jan 06 15:04 MST",
	"2 Jan 06 15:04 -0700",
	"Monday, 02-Jan-06 15:04:05 MST",
	"Monday, 02-Jan-2006 15:04:05 MST",
}

// zones are the North American zone names of RFC 822 §5.1, which Go's time
// package cannot place (it reads an unknown abbreviation as UTC).
var zones = map[string]int{
	"EST": -5, "EDT": -4, "CST": -6, "CDT": -5, "MST": -7, "MDT": -6, "PST": -8, "PDT": -7,
}

// parseDate reads an unavailable_after date. A date with no zone is UTC.
func parseDate(s string) (time.Time, bool) {
	s = strings.TrimSpace(s)
	for _, layout := range dateLayouts {
		t, err := time.ParseInLocation(layout, s, time.UTC)
		if err != nil {
			continue
		}
		name, offset := t.Zone()
		if h, ok := zones[strings.ToUpper(name)]; ok && offset == 0 {
			y, mo, d := t.Date()
			t = time.Date(y, mo, d, t.Hour(), t.Minute(), t.Second(), t.Nanosecond(), time.FixedZone(name, h*3600))
		}
		return t.UTC(), true
	}
	return time.Time{}, false
}
