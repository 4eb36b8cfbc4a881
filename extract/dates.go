package extract

import (
	"strings"
	"sync"
	"unicode"
)

// dateline reports whether the words of a line are a date and nothing
// else: numbers and the words of dates and times, with a year or a
// numeric date in them ("Tue., Mar. 5, 2024, 8:41 a.m.", "2024-03-05"),
// or a time before now ("Updated 3 hours ago").
func dateline(words []string, text string) bool {
	numeric := numericDate(text)
	number, named, year := false, false, numeric
	for _, w := range words {
		w = strings.ToLower(w)
		switch {
		case strings.IndexFunc(w, unicode.IsDigit) >= 0:
			if !dateNumber(w) {
				return false // "10am", "3rd-floor": a fact's time or place, not a dateline's
			}
			number = true
			year = year || len(w) == 4 && ("1900" <= w && w <= "2099")
		case w == "ago":
			named, year = true, true
		case dateWords()[w]:
			named = named || !durationWords()[w]
		case w == "a" || w == "p" || w == "m":
			// a.m., p.m.
		default:
			return false // a word that is not a date's: "When", "Photo", "Python"
		}
	}
	return number && (named && year || numeric)
}

// dateNumber reports whether a word with a digit is a dateline's number:
// digits alone, or a day with its ordinal ("5th").
func dateNumber(w string) bool {
	rest := strings.TrimLeft(w, "0123456789")
	return rest == "" || len(rest) < len(w) && (rest == "st" || rest == "nd" || rest == "rd" || rest == "th")
}

// numericDate reports whether s holds a date written in numbers, three
// of them with one separator: a year of 1900 to 2099, a month and a day
// ("2024-03-05", "5.3.2024", "05/03/24"; a two-digit year only with
// slashes). Longer runs of numbers (versions, addresses, phone numbers)
// are none.
func numericDate(s string) bool {
	for i := 0; i < len(s); {
		if s[i] < '0' || s[i] > '9' {
			i++
			continue
		}
		// A run of numbers joined by one of - / . at a time.
		var parts []string
		seps := ""
		j := i
		for {
			k := j
			for k < len(s) && '0' <= s[k] && s[k] <= '9' {
				k++
			}
			parts = append(parts, s[j:k])
			if k+1 < len(s) && strings.IndexByte("-/.", s[k]) >= 0 && '0' <= s[k+1] && s[k+1] <= '9' {
				seps += s[k : k+1]
				j = k + 1
				continue
			}
			i = k
			break
		}
		if len(parts) == 3 && seps[0] == seps[1] && plausibleDate(parts, seps[0]) {
			return true
		}
	}
	return false
}

func plausibleDate(p []string, sep byte) bool {
	num := func(s string) int {
		n := 0
		for _, c := range s {
			n = n*10 + int(c-'0')
		}
		return n
	}
	year := func(s string) bool {
		return len(s) == 4 && 1900 <= num(s) && num(s) <= 2099 || len(s) == 2 && sep == '/'
	}
	small := func(s string, hi int) bool { return len(s) <= 2 && 1 <= num(s) && num(s) <= hi }
	if len(p[0]) == 4 {
		return year(p[0]) && small(p[1], 12) && small(p[2], 31)
	}
	return year(p[2]) && (small(p[0], 31) && small(p[1], 12) || small(p[0], 12) && small(p[1], 31))
}

// dateWords are the words of a dateline besides its numbers; those of
// durationWords do not make a line a date alone ("5 min read").
var dateWords = sync.OnceValue(func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`january february march april may june july august september october november december
		jan feb mar apr jun jul aug sep sept oct nov dec monday tuesday wednesday thursday friday saturday sunday
		mon tue tues wed thu thurs fri sat sun am pm utc gmt est edt cst cdt mst mdt pst pdt bst cet cest et pt
		published updated posted modified last on at ago min mins minute minutes hour hours day days week weeks
		read time of th st nd rd`) {
		m[w] = true
	}
	return m
})

var durationWords = sync.OnceValue(func() map[string]bool {
	return map[string]bool{
		"on": true, "at": true, "of": true, "th": true, "st": true, "nd": true, "rd": true, "et": true, "pt": true,
		"last": true, "read": true, "time": true, "min": true, "mins": true, "minute": true, "minutes": true,
		"hour": true, "hours": true, "day": true, "days": true, "week": true, "weeks": true,
	}
})
