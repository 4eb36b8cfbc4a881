// Package directives reads and writes the page-level robots directives of
// the X-Robots-Tag HTTP header and the <meta name="robots"> tag, as the
// search engines document them: flags such as noindex and nofollow,
// value directives such as max-snippet and unavailable_after, and sets
// scoped to one crawler ("googlebot: noindex").
//
// Parse reads one header value or meta content into sets; For merges every
// set that applies to one crawler, the most restrictive value winning; and
// Set.String writes a set back. Parse never fails: what it cannot read is
// kept in Set.Other or dropped.
//
// It depends on no net, net/http, regexp, or third-party package.
package directives
