package directives

import (
	"strings"
	"time"
)

// dateLayouts are the forms unavailable_after is written in: ISO 8601
// (RFC 3339 and its common shortenings), RFC 822 and RFC 1123, and RFC 850.
var dateLayouts = []string{
	time.RFC3339Nano,
	"2006-01-02T15:04:05.999999999-0700",
	"2006-01-02T15:04Z07:00",
	"2006-01-02T15:04-0700",
	"2006-01-02T15:04:05.999999999",
	"2006-01-02T15:04",
	"2006-01-02 15:04:05.999999999Z07:00",
	"2006-01-02 15:04:05.999999999",
	"2006-01-02",
	// RFC 822 and RFC 1123: weekday optional, two- or four-digit year,
	// seconds optional, a zone name or a numeric offset.
	"Mon, 2 Jan 2006 15:04:05 MST",
	"Mon, 2 Jan 2006 15:04:05 -0700",
	"Mon, 2 Jan 2006 15:04 MST",
	"Mon, 2 Jan 2006 15:04 -0700",
	"Mon, 2 Jan 06 15:04:05 MST",
	"Mon, 2 Jan 06 15:04:05 -0700",
	"Mon, 2 Jan 06 15:04 MST",
	"Mon, 2 Jan 06 15:04 -0700",
	"2 Jan 2006 15:04:05 MST",
	"2 Jan 2006 15:04:05 -0700",
	"2 Jan 2006 15:04 MST",
	"2 Jan 2006 15:04 -0700",
	"2 Jan 06 15:04:05 MST",
	"2 Jan 06 15:04:05 -0700",
	"2 Jan 06 15:04 MST",
	"2 Jan 06 15:04 -0700",
	// RFC 850.
	"Monday, 02-Jan-06 15:04:05 MST",
	"Monday, 02-Jan-2006 15:04:05 MST",
}

// zones are the zone names of RFC 822 §5.1, as hours east of UTC. Any
// other name is refused: Go's time package would read it as UTC, and a
// guess hours off is worse than no date.
var zones = map[string]int{
	"UT": 0, "UTC": 0, "GMT": 0, "Z": 0,
	"EST": -5, "EDT": -4, "CST": -6, "CDT": -5, "MST": -7, "MDT": -6, "PST": -8, "PDT": -7,
}

// parseDate reads an unavailable_after date. A date with no zone is UTC.
func parseDate(s string) (time.Time, bool) {
	s = strings.TrimSpace(s)
	// Go reads a zone name of three or more letters; RFC 822 also has "UT"
	// and "Z".
	for _, short := range []string{" UT", " Z", " ut", " z"} {
		if strings.HasSuffix(s, short) {
			s = s[:len(s)-len(short)] + " GMT"
		}
	}
	for _, layout := range dateLayouts {
		t, err := time.ParseInLocation(layout, s, time.UTC)
		if err != nil {
			continue
		}
		if strings.Contains(layout, "MST") {
			name, _ := t.Zone()
			hours, ok := zones[strings.ToUpper(name)]
			if !ok {
				continue // not a zone name heed can place; a numeric layout may read it
			}
			y, mo, d := t.Date()
			t = time.Date(y, mo, d, t.Hour(), t.Minute(), t.Second(), t.Nanosecond(), time.FixedZone(name, hours*3600))
		}
		return t.UTC(), true
	}
	return time.Time{}, false
}
