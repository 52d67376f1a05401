package sandbox

import (
	"context"
	"errors"
	"net"
	"net/netip"
	"strings"
)

// Reasons the egress proxy gives for refusing a request, in its log, in
// the X-Kusaw-Egress header and in the body of its 403 answer; and, for
// DenyDNS and DenyDial, why a request the policy allowed failed, answered
// 502 and logged as allowed with an error.
const (
	DenyNotAllowed   = "not_allowed"   // the host is not in the allowlist
	DenyIPLiteral    = "ip_literal"    // an IP address instead of a name
	DenyDNS          = "dns_error"     // an allowed name did not resolve (502)
	DenyLoopback     = "loopback"      // 127.0.0.0/8, ::1
	DenyPrivate      = "private"       // RFC 1918, fc00::/7
	DenyLinkLocal    = "link_local"    // 169.254.0.0/16, fe80::/10
	DenyCGNAT        = "cgnat"         // 100.64.0.0/10
	DenyMetadata     = "metadata"      // 169.254.169.254, fd00:ec2::254
	DenyIPv4Embedded = "ipv4_embedded" // ::ffff:0:0/96, 64:ff9b::/96, 2002::/16, ...
	DenyUnspecified  = "unspecified"   // 0.0.0.0/8, ::
	DenyMulticast    = "multicast"     // 224.0.0.0/4, ff00::/8
	DenyReserved     = "reserved"      // 240.0.0.0/4, 192.0.0.0/24, 198.18.0.0/15
	DenyBadRequest   = "bad_request"   // not a proxy request, or not http
	DenyDial         = "dial_error"    // the checked address did not answer (502)
)

// blocked are the address ranges the proxy never dials, first match wins.
var blocked = []struct {
	prefix netip.Prefix
	reason string
}{
	{netip.MustParsePrefix("169.254.169.254/32"), DenyMetadata},
	{netip.MustParsePrefix("fd00:ec2::254/128"), DenyMetadata},
	{netip.MustParsePrefix("0.0.0.0/8"), DenyUnspecified},
	{netip.MustParsePrefix("::/128"), DenyUnspecified},
	{netip.MustParsePrefix("127.0.0.0/8"), DenyLoopback},
	{netip.MustParsePrefix("::1/128"), DenyLoopback},
	{netip.MustParsePrefix("10.0.0.0/8"), DenyPrivate},
	{netip.MustParsePrefix("172.16.0.0/12"), DenyPrivate},
	{netip.MustParsePrefix("192.168.0.0/16"), DenyPrivate},
	{netip.MustParsePrefix("fc00::/7"), DenyPrivate},
	{netip.MustParsePrefix("100.64.0.0/10"), DenyCGNAT},
	{netip.MustParsePrefix("169.254.0.0/16"), DenyLinkLocal},
	{netip.MustParsePrefix("fe80::/10"), DenyLinkLocal},
	{netip.MustParsePrefix("224.0.0.0/4"), DenyMulticast},
	{netip.MustParsePrefix("ff00::/8"), DenyMulticast},
	{netip.MustParsePrefix("::ffff:0:0/96"), DenyIPv4Embedded}, // IPv4-mapped
	{netip.MustParsePrefix("::/96"), DenyIPv4Embedded},         // IPv4-compatible
	{netip.MustParsePrefix("64:ff9b::/96"), DenyIPv4Embedded},  // NAT64
	{netip.MustParsePrefix("64:ff9b:1::/48"), DenyIPv4Embedded},
	{netip.MustParsePrefix("2002::/16"), DenyIPv4Embedded}, // 6to4
	{netip.MustParsePrefix("2001::/32"), DenyIPv4Embedded}, // Teredo
	{netip.MustParsePrefix("192.0.0.0/24"), DenyReserved},
	{netip.MustParsePrefix("198.18.0.0/15"), DenyReserved},
	{netip.MustParsePrefix("240.0.0.0/4"), DenyReserved},
}

// CheckAddr returns why the proxy refuses to dial a, or "" when it may.
// An IPv4-mapped address (::ffff:a.b.c.d, what a lookup in /etc/hosts
// gives) is checked as the IPv4 address it is.
func CheckAddr(a netip.Addr) string {
	a = a.WithZone("").Unmap()
	for _, b := range blocked {
		if b.prefix.Contains(a) {
			return b.reason
		}
	}
	return ""
}

// Allowed reports whether host matches the allowlist: an entry "name"
// matches that name only, "*.suffix" any name under suffix (not suffix
// itself). Case and a trailing dot do not matter.
func Allowed(host string, allow []string) bool {
	host = normHost(host)
	for _, a := range allow {
		a = normHost(a)
		if suffix, ok := strings.CutPrefix(a, "*."); ok {
			if strings.HasSuffix(host, "."+suffix) {
				return true
			}
		} else if host == a {
			return true
		}
	}
	return false
}

func normHost(h string) string {
	return strings.TrimSuffix(strings.ToLower(h), ".")
}

// check decides whether the proxy may connect to host: the allowlist
// first, before any DNS lookup; then one lookup, every address checked.
// It returns the address to dial, or the reason for refusing; for
// DenyDNS, the lookup's error too.
func (p *Proxy) check(ctx context.Context, host string) (netip.Addr, string, error) {
	host = normHost(strings.TrimSuffix(strings.TrimPrefix(host, "["), "]"))
	if _, err := netip.ParseAddr(host); err == nil {
		return netip.Addr{}, DenyIPLiteral, nil
	}
	if host == "" || !Allowed(host, p.Allow) {
		return netip.Addr{}, DenyNotAllowed, nil
	}
	addrs, err := p.resolve(ctx, host)
	if err == nil && len(addrs) == 0 {
		err = errors.New("no address")
	}
	if err != nil {
		return netip.Addr{}, DenyDNS, err
	}
	for i, a := range addrs {
		addrs[i] = a.Unmap()
		if reason := CheckAddr(a); reason != "" {
			return addrs[i], reason, nil
		}
	}
	return addrs[0], "", nil
}

func (p *Proxy) resolve(ctx context.Context, host string) ([]netip.Addr, error) {
	if p.Resolver != nil {
		return p.Resolver(ctx, host)
	}
	return net.DefaultResolver.LookupNetIP(ctx, "ip", host)
}

func (p *Proxy) dial(ctx context.Context, addr netip.AddrPort) (net.Conn, error) {
	if p.Dial != nil {
		return p.Dial(ctx, "tcp", addr.String())
	}
	var d net.Dialer
	return d.DialContext(ctx, "tcp", addr.String())
}
