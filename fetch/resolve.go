package fetch

import (
	"context"
	"fmt"
	"net"
	"net/netip"
	"strings"
)

// Static is a Resolver that answers the names it holds itself, as a
// user's split DNS would (a name the team's resolver knows, a test's
// names on loopback), and asks Next of the rest (nil: the system's). The
// guard judges its addresses as any other: a non-public one is dialled
// only within Config.AllowNets.
type Static struct {
	Names map[string][]netip.Addr // by lower-case name, without a trailing dot
	Next  Resolver
}

// LookupNetIP resolves host.
func (s *Static) LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error) {
	if addrs, ok := s.Names[strings.TrimSuffix(strings.ToLower(host), ".")]; ok {
		var out []netip.Addr
		for _, a := range addrs {
			if network == "ip" || network == "ip4" && a.Is4() || network == "ip6" && a.Is6() {
				out = append(out, a)
			}
		}
		return out, nil
	}
	next := s.Next
	if next == nil {
		next = net.DefaultResolver
	}
	return next.LookupNetIP(ctx, network, host)
}

// ParseResolve reads entries of the form NAME:ADDRESS (as curl's
// --resolve, without its port: the name resolves so for every port),
// where ADDRESS is an IPv4 or IPv6 address (bracketed or not), several
// for one name by repeating it.
func ParseResolve(entries []string) (map[string][]netip.Addr, error) {
	names := map[string][]netip.Addr{}
	for _, e := range entries {
		name, addr, ok := strings.Cut(strings.TrimSpace(e), ":")
		name = strings.TrimSuffix(strings.ToLower(name), ".")
		if !ok || name == "" || strings.ContainsAny(name, "/[]@ ") {
			return nil, fmt.Errorf("%q is not NAME:ADDRESS, such as docs.internal:10.0.0.5", e)
		}
		a, err := netip.ParseAddr(strings.TrimSuffix(strings.TrimPrefix(addr, "["), "]"))
		if err != nil {
			return nil, fmt.Errorf("%q is not NAME:ADDRESS, such as docs.internal:10.0.0.5: %q is not an IP address", e, addr)
		}
		names[name] = append(names[name], a.Unmap())
	}
	return names, nil
}
