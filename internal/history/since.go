package history

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/heedhq/heed"
)

// DefaultSince is the time a question of what changed asks about when it
// names none: a week back.
const DefaultSince = "7d"

// maxDays bounds a number of days back, so that no date before the
// calendar's is asked for.
const maxDays = 100 * 366

// ParseSince reads a time asked about, as every door takes it: a time
// (RFC 3339, or a date, in UTC), or a duration back from now (Go's, such
// as 36h, or a number of days, such as 7d).
func ParseSince(s string, now time.Time) (time.Time, error) {
	if t, err := time.Parse(time.RFC3339, s); err == nil {
		return t, nil
	}
	if t, err := time.Parse(time.DateOnly, s); err == nil {
		return t, nil
	}
	if days, ok := strings.CutSuffix(s, "d"); ok {
		if n, err := strconv.Atoi(days); err == nil && n >= 0 && n <= maxDays {
			return now.AddDate(0, 0, -n), nil
		}
	}
	if d, err := time.ParseDuration(s); err == nil && d >= 0 {
		return now.Add(-d), nil
	}
	return time.Time{}, fmt.Errorf("%q is no time (2026-12-01, 2026-12-01T09:00:00Z) and no duration (36h, 7d)", heed.Clip(s, 64))
}
