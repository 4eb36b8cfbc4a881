package feed

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// An oldest-first feed whose dates gofeed reads but the cut does not.
func TestCutDateFormats(t *testing.T) {
	for _, layout := range []string{
		"Mon, 02 Jan 2006 15:04 -0700",     // RFC 822 allows the seconds to be left out
		"2006-01-02 15:04:05",              // common in generated feeds
		"Mon, 02 Jan 2006 15:04:05 +00:00", // colon in offset
		"2006-01-02T15:04:05.000-0700",
		"Monday, 02-Jan-06 15:04:05 MST", // RFC 850
		"Mon, 02 January 2006 15:04:05 -0700",
	} {
		var b strings.Builder
		b.WriteString(`<?xml version="1.0"?><rss version="2.0"><channel><title>t</title>`)
		for i := 1; i <= 60; i++ {
			d := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(i) * time.Hour)
			fmt.Fprintf(&b, "<item><title>P%d</title><pubDate>%s</pubDate></item>", i, d.Format(layout))
		}
		b.WriteString("</channel></rss>")
		f, err := Read([]byte(b.String()), "https://e.com/", 50)
		if err != nil {
			t.Fatal(err)
		}
		if f.Items[0].Title != "P60" {
			t.Errorf("%q: newest kept is %s (date %v), want P60; gofeed read the date: %v", layout, f.Items[0].Title, f.Items[0].Date, !f.Items[0].Date.IsZero())
		}
	}
}

// When the cut cannot read an item's date, it keeps the feed's first
// items rather than let the unread date push newer items out.
func TestCutUnreadableDateKeepsFeedOrder(t *testing.T) {
	var b strings.Builder
	b.WriteString(`<?xml version="1.0"?><rss version="2.0"><channel><title>t</title>`)
	b.WriteString("<item><title>Odd</title><pubDate>sometime soon</pubDate></item>")
	for i := 1; i <= 60; i++ {
		d := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).Add(-time.Duration(i) * time.Hour)
		fmt.Fprintf(&b, "<item><title>P%d</title><pubDate>%s</pubDate></item>", i, d.Format(time.RFC1123Z))
	}
	b.WriteString("</channel></rss>")
	f, err := Read([]byte(b.String()), "https://e.com/", 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Items) != 10 || f.Items[0].Title != "P1" || f.Items[8].Title != "P9" {
		t.Errorf("kept %+v", f.Items)
	}
}
