// Package fetch is the one HTTP client that every request heed makes goes
// through, robots.txt included.
//
// A [Client] refuses, before connecting, URLs it must never fetch: schemes
// other than http and https, URLs carrying credentials, and destinations
// that are not public unicast addresses. The address is judged where it is
// dialled (net.Dialer.ControlContext), after DNS resolution, on every
// connection and every redirect hop, so neither DNS rebinding nor a redirect
// reaches a private address. Host spellings that resolvers read as IPv4
// ("2130706433", "0x7f.1", "127.1") are judged as the address they denote,
// and IPv4-mapped IPv6 addresses by the IPv4 address inside them. Only the
// user can allow a non-public network, through [Config.AllowNets].
//
// Redirects are followed by the client itself, up to a cap, each hop
// checked again; cookies and credentials are never sent, and an https
// request is never redirected to http. Bodies are read under a byte cap
// counted after decompression, a body deadline and an overall deadline;
// headers under a size cap. GETs are retried with backoff after a 429, a
// 503 or a transient network error, honouring Retry-After up to a cap.
// [Client.LoadRobots] is the loader of heed's robots.txt policy.
//
// # Security Considerations
//
// The deny lists come from code.dny.dev/ssrf, generated from the IANA
// special-purpose address registries. An explicitly configured proxy is
// trusted to connect; heed then judges the destination by its own DNS
// resolution before each request, which a DNS rebinding between that
// lookup and the proxy's cannot be ruled out for. The environment's proxy
// variables are never read.
//
// It may not import internal/crawl, internal/source, internal/stash,
// internal/ingest or extract: it knows nothing of crawling.
package fetch
