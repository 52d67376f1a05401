package sandbox

import (
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"golang.org/x/sys/unix"
)

// Paths inside the sandbox, on the /run tmpfs.
const (
	insideSelf   = "/run/kusaw/kusaw-step"
	insideSocket = "/run/kusaw/egress.sock"
)

// unprivileged is the uid and gid the step has inside when the runner is
// root: as root, bwrap would keep every capability.
const unprivileged = 65534

func nativeBackend() string { return BackendBwrap }

// probeBwrap runs bwrap once with the options Wrap uses, since user
// namespaces may be disabled or restricted (containers, AppArmor).
var probeBwrap = sync.OnceValue(func() error {
	path, err := exec.LookPath("bwrap")
	if err != nil {
		return fmt.Errorf("bwrap not installed (apt-get install bubblewrap): %w", err)
	}
	args := append(baseArgs(NetworkAllowlist), "--", "/bin/sh", "-c", "exit 0")
	out, err := exec.Command(path, args...).CombinedOutput()
	if err != nil {
		return fmt.Errorf("bwrap does not run here: %v: %s", err, strings.TrimSpace(string(out)))
	}
	return nil
})

// Available reports whether backend works on this system: nil, or an
// error that says why not. On Linux only bwrap can, and a probe runs it
// once per process.
func Available(backend string) error {
	if backend != BackendBwrap {
		return fmt.Errorf("backend %q does not run on linux", backend)
	}
	return probeBwrap()
}

// baseArgs are bwrap's options before any bind.
func baseArgs(network string) []string {
	args := []string{"--unshare-all", "--die-with-parent"}
	if network == NetworkOpen {
		args = append(args, "--share-net")
	}
	uid, gid := os.Getuid(), os.Getgid()
	if uid == 0 {
		uid, gid = unprivileged, unprivileged
	}
	args = append(args, "--unshare-user", "--uid", strconv.Itoa(uid), "--gid", strconv.Itoa(gid),
		"--cap-drop", "ALL", "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc")
	for _, dir := range masked {
		args = append(args, "--tmpfs", dir)
	}
	return args
}

// listenProxy listens on a unix socket in a private folder; Wrap binds it
// into the sandbox, where the bridge serves it on a loopback port.
func listenProxy(s *Sandbox, p *Policy) error {
	dir, lock, err := makeEgressDir()
	if err != nil {
		return err
	}
	s.dir, s.dirLock = dir, lock
	s.ln, err = net.Listen("unix", filepath.Join(dir, "egress.sock"))
	s.proxyURL = "http://127.0.0.1:" + strconv.Itoa(p.port())
	return err
}

// wrap rewrites cmd to run under bwrap, behind the supervisor (see
// [RunSupervisor]) and, with a network allowlist, in front of the bridge.
func wrap(cmd *exec.Cmd, p *Policy, s *Sandbox) error {
	bwrap, err := exec.LookPath("bwrap")
	if err != nil {
		return fmt.Errorf("%w: %v", ErrUnavailable, err)
	}
	prog, err := program(cmd)
	if err != nil {
		return err
	}
	args, err := s.sandboxArgs(cmd, p, bwrap, prog)
	if err != nil {
		return err
	}
	self, err := p.self()
	if err != nil {
		return err
	}
	argv := append([]string{prog}, cmd.Args[1:]...)
	if s.ln != nil {
		args = append(args, "--ro-bind", self, insideSelf, "--bind", s.ln.Addr().String(), insideSocket)
		argv = bridgeArgs(insideSelf, insideSocket, p.port(), argv)
	}
	args = append(append(args, "--"), argv...)
	cmd.Path = self
	cmd.Args = append([]string{self, SuperviseCommand, strconv.Itoa(os.Getpid()), strconv.Itoa(len(cmd.ExtraFiles)), "--"}, args...)
	return nil
}

// sandboxArgs returns bwrap's argv up to the step: the options, the
// writable binds, and what makes the program and its folder visible.
func (s *Sandbox) sandboxArgs(cmd *exec.Cmd, p *Policy, bwrap, prog string) ([]string, error) {
	args := append([]string{bwrap}, baseArgs(p.Network)...)
	if !p.Terminal {
		args = append(args, "--new-session")
	}
	var err error
	for _, dir := range p.Writable {
		if args, err = s.bindFd(cmd, args, dir); err != nil {
			return nil, err
		}
	}
	args = append(args, visible(prog, p.Writable)...)
	for _, path := range p.Readable {
		args = append(args, visible(path, p.Writable)...)
	}
	if cmd.Dir != "" {
		args = append(append(args, visible(cmd.Dir, p.Writable)...), "--chdir", cmd.Dir)
	}
	return args, nil
}

// bindFd opens dir without following any symlink and adds a writable bind
// of that very folder at dir, passed to bwrap as an inherited descriptor:
// a symlink planted at (or above) dir cannot redirect the bind.
func (s *Sandbox) bindFd(cmd *exec.Cmd, args []string, dir string) ([]string, error) {
	f, err := openDir(dir)
	if err != nil {
		return nil, fmt.Errorf("sandbox: writable folder %s: %w", dir, err)
	}
	s.files = append(s.files, f)
	fd := 3 + len(cmd.ExtraFiles)
	cmd.ExtraFiles = append(cmd.ExtraFiles, f)
	return append(args, "--bind-fd", strconv.Itoa(fd), dir), nil
}

// openDir opens dir as an O_PATH descriptor, refusing a symlink anywhere
// in the path (openat2 RESOLVE_NO_SYMLINKS; on kernels without openat2,
// O_NOFOLLOW refuses one at the last element), and only a directory.
func openDir(dir string) (*os.File, error) {
	how := unix.OpenHow{
		Flags:   unix.O_PATH | unix.O_DIRECTORY | unix.O_CLOEXEC | unix.O_NOFOLLOW,
		Resolve: unix.RESOLVE_NO_SYMLINKS,
	}
	fd, err := unix.Openat2(unix.AT_FDCWD, dir, &how)
	if errors.Is(err, unix.ENOSYS) {
		fd, err = unix.Open(dir, int(how.Flags), 0)
	}
	switch {
	case errors.Is(err, unix.ELOOP) || errors.Is(err, unix.ENOTDIR) && isSymlink(dir):
		return nil, fmt.Errorf("a symlink, or a symlink in its path: %w", unix.ELOOP)
	case err != nil:
		return nil, err
	}
	return os.NewFile(uintptr(fd), dir), nil
}

// visible returns the bwrap options that make path visible, read-only,
// when it lies in a folder the sandbox masks with a tmpfs (a test binary
// in /tmp) and is not in a writable folder.
func visible(path string, writable []string) []string {
	if !hidden(path) {
		return nil
	}
	for _, dir := range writable {
		if within(path, dir) {
			return nil
		}
	}
	return []string{"--ro-bind", path, path}
}

func isSymlink(path string) bool {
	fi, err := os.Lstat(path)
	return err == nil && fi.Mode()&os.ModeSymlink != 0
}
