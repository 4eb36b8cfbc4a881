package robots

import (
	"io"
	"slices"
	"strconv"
	"strings"
	"time"
)

// String returns the file as Format writes it.
func (r *Robots) String() string {
	var b strings.Builder
	r.Format(&b)
	return b.String()
}

// Format writes the file in a normal form: each group with its User-agent
// lines, then its rules in order, its Crawl-delay and its Content-Signal;
// then the sitemaps; then every other record. Sections are separated by a blank line and lines end with LF.
// Parsing what Format writes gives back the same groups, sitemaps and
// records (line numbers aside).
//
// Format writes values as they are; it is up to a caller building a file
// by hand to keep line ends and '#' out of them, to give every group at
// least one User-agent, and to give every group but the last at least one
// rule (a group without one merges with the next, RFC 9309 §2.2.1).
func (r *Robots) Format(w io.Writer) error {
	var b strings.Builder
	section := func() {
		if b.Len() > 0 {
			b.WriteByte('\n')
		}
	}
	for i := range r.Groups {
		g := &r.Groups[i]
		section()
		for _, a := range g.Agents {
			line(&b, canonical[fieldUserAgent], a)
		}
		for j := range g.Rules {
			b.WriteString(g.Rules[j].String())
			b.WriteByte('\n')
		}
		if g.HasCrawlDelay {
			line(&b, canonical[fieldCrawlDelay], formatDelay(g.CrawlDelay))
		}
		if len(g.Signals) > 0 {
			line(&b, canonical[fieldContentSignal], g.Signals.String())
		}
	}
	if len(r.Sitemaps) > 0 {
		section()
		for _, s := range r.Sitemaps {
			line(&b, canonical[fieldSitemap], s)
		}
	}
	if len(r.Records) > 0 {
		section()
		for _, rec := range r.Records {
			line(&b, rec.Name, rec.Value)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func line(b *strings.Builder, name, value string) {
	b.WriteString(name)
	b.WriteString(": ")
	b.WriteString(value)
	b.WriteByte('\n')
}

// String writes the signals as a Content-Signal value, uses in
// alphabetical order: "ai-input=no, ai-train=no, search=yes".
func (s Signals) String() string {
	keys := make([]string, 0, len(s))
	for k := range s {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var b strings.Builder
	for i, k := range keys {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(k)
		if s[k] {
			b.WriteString("=yes")
		} else {
			b.WriteString("=no")
		}
	}
	return b.String()
}

// formatDelay writes a delay in seconds, with as many decimals as it needs.
func formatDelay(d time.Duration) string {
	s := strconv.FormatInt(int64(d/time.Second), 10)
	if ns := int64(d % time.Second); ns > 0 {
		frac := strconv.FormatInt(ns+int64(time.Second), 10)[1:] // nine digits
		s += "." + strings.TrimRight(frac, "0")
	}
	return s
}
