package sandbox

import (
	"fmt"
	"strconv"
	"strings"
)

// SeatbeltProfile returns the seatbelt (sandbox-exec) profile of p: deny
// by default; reading anywhere, running programs and the usual system
// services allowed; writing only to p.Writable, the terminal and
// /dev/null; with a network allowlist, only outbound TCP to the egress
// proxy on localhost:proxyPort, otherwise any network.
func SeatbeltProfile(p *Policy, proxyPort int) string {
	var b strings.Builder
	b.WriteString(`(version 1)
(deny default)
(import "system.sb")
(allow process-fork process-exec)
(allow signal (target same-sandbox))
(allow file-read*)
(allow sysctl-read)
(allow mach-lookup)
(allow ipc-posix-shm)
(allow file-write-data
  (literal "/dev/null") (literal "/dev/zero") (literal "/dev/dtracehelper")
  (regex #"^/dev/tty") (regex #"^/dev/fd/"))
(allow file-ioctl (regex #"^/dev/tty"))
`)
	if len(p.Writable) > 0 {
		b.WriteString("(allow file-write*")
		for _, dir := range p.Writable {
			fmt.Fprintf(&b, "\n  (subpath %s)", sbString(dir))
		}
		b.WriteString(")\n")
	}
	if p.Network == NetworkAllowlist {
		fmt.Fprintf(&b, "(allow network-outbound (remote tcp %s))\n", sbString("localhost:"+strconv.Itoa(proxyPort)))
	} else {
		b.WriteString("(allow network*)\n")
	}
	return b.String()
}

// sbString quotes s as a seatbelt (TinyScheme) string literal.
func sbString(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`)
	return `"` + r.Replace(s) + `"`
}
