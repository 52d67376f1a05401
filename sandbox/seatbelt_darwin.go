package sandbox

import (
	"fmt"
	"net"
	"os/exec"
	"path/filepath"
	"sync"
)

// sandboxExec is macOS's seatbelt front end.
const sandboxExec = "/usr/bin/sandbox-exec"

func nativeBackend() string { return BackendSeatbelt }

// probeSeatbelt runs sandbox-exec once with a trivial profile.
var probeSeatbelt = sync.OnceValue(func() error {
	out, err := exec.Command(sandboxExec, "-p", "(version 1)(allow default)", "/usr/bin/true").CombinedOutput()
	if err != nil {
		return fmt.Errorf("sandbox-exec does not run here: %v: %s", err, out)
	}
	return nil
})

// Available reports whether backend works on this system: nil, or an
// error that says why not. On macOS only seatbelt can, and a probe runs
// it once per process.
func Available(backend string) error {
	if backend != BackendSeatbelt {
		return fmt.Errorf("backend %q does not run on darwin", backend)
	}
	return probeSeatbelt()
}

// listenProxy listens on a loopback port of the host: the profile lets
// the step reach that port and nothing else.
func listenProxy(s *Sandbox, _ *Policy) error {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	s.ln = ln
	s.proxyURL = "http://" + ln.Addr().String()
	return nil
}

// wrap rewrites cmd to run under sandbox-exec with the policy's profile.
func wrap(cmd *exec.Cmd, p *Policy, s *Sandbox) error {
	prog, err := program(cmd)
	if err != nil {
		return err
	}
	port := 0
	if s.ln != nil {
		port = s.ln.Addr().(*net.TCPAddr).Port
	}
	args := []string{"sandbox-exec", "-p", SeatbeltProfile(realPaths(p), port), "--", prog}
	cmd.Path, cmd.Args = sandboxExec, append(args, cmd.Args[1:]...)
	return nil
}

// realPaths returns p with its writable folders resolved: seatbelt checks
// the real path of every write (/tmp is /private/tmp), so a symlink in or
// to a writable folder never extends what the step may write.
func realPaths(p *Policy) *Policy {
	q := *p
	q.Writable = nil
	for _, dir := range p.Writable {
		if real, err := filepath.EvalSymlinks(dir); err == nil {
			q.Writable = append(q.Writable, real)
		}
	}
	return &q
}
