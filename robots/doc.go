// Package robots reads, writes and evaluates robots.txt files as RFC 9309
// defines them, and explains every decision it makes.
//
// Parse reads any bytes into a [Robots]: groups of rules, sitemaps and other
// records, each with its line number. [Robots.Allowed] decides whether a
// user agent may fetch a URL and returns a [Decision] naming the rule, line
// and group that decided. [Robots.Format] writes a file back.
//
// This package never fetches anything. Fetching is a [Loader]'s job: it turns
// an HTTP result into an [Outcome] (see [OutcomeOf]), and a [Cache] keeps one
// outcome per origin for its lifetime. [Off] is the policy of a fetch that
// does not consult robots.txt.
//
// # Matching
//
// A user agent is reduced to its product token, the leading run of
// [A-Za-z_-], compared case-insensitively with the product tokens of the
// file's User-agent values. Every group naming the token applies; failing
// that, every "*" group; failing that, everything is allowed. In a pattern,
// '*' matches any run of characters and a trailing '$' anchors the end;
// everything else is literal. The longest pattern (length as written) wins,
// Allow wins a tie, an empty pattern is no rule, and "/robots.txt" is always
// allowed. Paths and patterns are percent-normalized the same way before
// matching: non-ASCII is encoded as UTF-8, escapes are upper-cased and
// escapes of unreserved characters decoded, and a literal '*' or '$' in a
// URL matches "%2A" or "%24" in a pattern.
//
// # Security Considerations
//
// A robots.txt file is written by whoever runs the site, and a crawler
// fetches it automatically, so this package treats it as hostile input.
// Parse reads at most [MaxBytes] and never fails or panics. Patterns are
// compiled once, at parse time, into literal segments matched by a single
// forward scan, never a regular expression: no file can make a match cost
// more than the number of segments times the length of the path.
//
// It depends on no net, net/http, regexp, or third-party package.
package robots
