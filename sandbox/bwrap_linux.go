package sandbox

import (
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"

	"golang.org/x/sys/unix"

	"kusaw.dev/step/internal/proc"
)

// Paths inside the sandbox, on the /run tmpfs.
const (
	insideSelf   = "/run/kusaw/kusaw-step"
	insideSocket = "/run/kusaw/egress.sock"
)

// unprivileged is the uid and gid the step has, inside and on the host,
// when the runner is root.
const unprivileged = UnprivilegedUID

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

// canDisableUserns reports whether bwrap can keep the step from making
// nested user namespaces (--disable-userns, bwrap 0.8), tried once.
var canDisableUserns = sync.OnceValue(func() bool {
	path, err := exec.LookPath("bwrap")
	if err != nil {
		return false
	}
	args := []string{"--unshare-user", "--disable-userns", "--ro-bind", "/", "/", "--", "/bin/sh", "-c", "exit 0"}
	return exec.Command(path, args...).Run() == nil
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

// baseArgs are bwrap's options before any bind. As root the runner starts
// bwrap as the unprivileged uid (see [RunSupervisor]), which then is the
// step's uid inside and on the host.
func baseArgs(network string) []string {
	args := []string{"--unshare-all", "--die-with-parent"}
	if network == NetworkOpen {
		args = append(args, "--share-net")
	}
	uid, gid := os.Getuid(), os.Getgid()
	if uid == 0 {
		uid, gid = unprivileged, unprivileged
	}
	args = append(args, "--unshare-user", "--uid", strconv.Itoa(uid), "--gid", strconv.Itoa(gid))
	if canDisableUserns() {
		args = append(args, "--disable-userns") // no nested user namespace: no root in one
	}
	args = append(args, "--cap-drop", "ALL", "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc")
	for _, dir := range masks() {
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
	report, stopR, stopW, err := s.openChannels(cmd)
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
	if args, err = s.bindFd(cmd, args, self, insideSelf, false); err != nil {
		return err
	}
	argv := append([]string{prog}, cmd.Args[1:]...)
	if s.ln != nil {
		if args, err = s.bindFd(cmd, args, s.ln.Addr().String(), insideSocket, true); err != nil {
			return err
		}
		argv = bridgeArgs(insideSelf, insideSocket, p.port(), argv)
	}
	argv = append([]string{insideSelf, InitCommand, strconv.Itoa(report), strconv.Itoa(stopR), "--"}, argv...)
	args = append(append(args, "--"), argv...)
	cmd.Path = self
	cmd.Args = []string{self, SuperviseCommand, strconv.Itoa(os.Getpid()), strconv.Itoa(len(cmd.ExtraFiles)),
		"--pass", strconv.Itoa(report), "--pass", strconv.Itoa(stopR), "--stop", strconv.Itoa(stopW)}
	cmd.Args = append(append(append(cmd.Args, s.limit(p)...), "--"), args...)
	return nil
}

// newCgroup makes the sandbox's cgroup; tests replace it to take the path
// of a machine where none can be made.
var newCgroup = proc.NewCgroup

// openChannels makes the sandbox init's two channels (see [RunInit]),
// pipes that are the command's next descriptors: the report of what the
// step left running (its write end passed on by the supervisor and bwrap
// at the same number, to the init) and the stop notice (its read end
// passed on likewise, its write end kept by the supervisor, which writes
// a byte there before it passes a stop signal into the sandbox). It
// returns the three descriptor numbers.
func (s *Sandbox) openChannels(cmd *exec.Cmd) (report, stopR, stopW int, err error) {
	if s.reportR, s.reportW, err = os.Pipe(); err != nil {
		return 0, 0, 0, fmt.Errorf("sandbox: report channel: %w", err)
	}
	if s.stopR, s.stopW, err = os.Pipe(); err != nil {
		return 0, 0, 0, fmt.Errorf("sandbox: stop channel: %w", err)
	}
	n := len(cmd.ExtraFiles)
	cmd.ExtraFiles = append(cmd.ExtraFiles, s.reportW, s.stopR, s.stopW)
	return 3 + n, 4 + n, 5 + n, nil
}

// limit bounds the sandbox's processes and memory: a cgroup the
// supervisor joins, when the runner may make one; else, as root, the
// RLIMIT_NPROC of the sandbox's host uid, which no other process has (see
// lockHostUID). It returns the supervisor's options.
func (s *Sandbox) limit(p *Policy) []string {
	if p.PidsMax <= 0 && p.MemoryMax <= 0 {
		return nil
	}
	var opts []string
	cg, err := newCgroup(proc.Limits{PidsMax: p.PidsMax, MemoryMax: p.MemoryMax})
	if err == nil {
		s.cgroup = cg
		for _, d := range cg.Dirs() {
			opts = append(opts, "--cgroup", d)
		}
		if cg.EnforcesPids() {
			s.pidsMax = p.PidsMax
		}
		if cg.EnforcesMemory() {
			s.memoryMax = p.MemoryMax
		}
	}
	if s.pidsMax == 0 && p.PidsMax > 0 && os.Getuid() == 0 {
		s.pidsMax = p.PidsMax
		opts = append(opts, "--nproc", strconv.Itoa(p.PidsMax))
	}
	return opts
}

// sandboxArgs returns bwrap's argv up to the step: the options, the
// binds of what the step is given (writable folders, --readable ones, the
// program and its working folder where the sandbox would hide them), and
// the working folder.
func (s *Sandbox) sandboxArgs(cmd *exec.Cmd, p *Policy, bwrap, prog string) ([]string, error) {
	args := append([]string{bwrap}, baseArgs(p.Network)...)
	if !p.Terminal {
		args = append(args, "--new-session")
	}
	binds := p.binds(prog, cmd.Dir)
	for _, dir := range unreachable(binds) {
		args = append(args, "--tmpfs", dir)
	}
	var err error
	for _, b := range binds {
		if args, err = s.bindFd(cmd, args, b.path, b.path, b.rw); err != nil {
			return nil, err
		}
	}
	if cmd.Dir != "" {
		args = append(args, "--chdir", cmd.Dir)
	}
	return args, nil
}

// bindFd opens path without following any symlink (a writable folder) or
// following them (what is only read), and adds a bind of that very file
// at dest, passed to bwrap as an inherited descriptor: a symlink planted
// at (or above) a writable folder cannot redirect the bind. As root, the
// supervisor turns each into an idmapped bind the unprivileged uid owns
// (see [RunSupervisor]).
func (s *Sandbox) bindFd(cmd *exec.Cmd, args []string, path, dest string, rw bool) ([]string, error) {
	var f *os.File
	var err error
	if rw {
		f, err = openNoFollow(path)
	} else {
		f, err = openPath(path)
	}
	if err != nil {
		what := "folder the step may read"
		if rw {
			what = "writable folder"
		}
		return nil, fmt.Errorf("sandbox: %s %s: %w", what, path, err)
	}
	s.files = append(s.files, f)
	fd := 3 + len(cmd.ExtraFiles)
	cmd.ExtraFiles = append(cmd.ExtraFiles, f)
	opt := "--ro-bind-fd"
	if rw {
		opt = "--bind-fd"
	}
	return append(args, opt, strconv.Itoa(fd), dest), nil
}

// openPath opens path as an O_PATH descriptor, following symlinks.
func openPath(path string) (*os.File, error) {
	fd, err := unix.Open(path, unix.O_PATH|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: path, Err: err}
	}
	return os.NewFile(uintptr(fd), path), nil
}

// openNoFollow opens a writable folder, or the egress socket.
func openNoFollow(path string) (*os.File, error) {
	fi, err := os.Lstat(path)
	if err == nil && fi.Mode()&os.ModeSocket != 0 {
		fd, err := unix.Open(path, unix.O_PATH|unix.O_CLOEXEC|unix.O_NOFOLLOW, 0)
		if err != nil {
			return nil, &os.PathError{Op: "open", Path: path, Err: err}
		}
		return os.NewFile(uintptr(fd), path), nil
	}
	return openDir(path)
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

func isSymlink(path string) bool {
	fi, err := os.Lstat(path)
	return err == nil && fi.Mode()&os.ModeSymlink != 0
}

// reachable reports whether the step can reach path through the host's
// folders: always when the runner is not root (the step is the runner's
// user); as root, when every folder above path lets others search it,
// since the step then runs as the unprivileged uid.
func reachable(path string) bool {
	if os.Getuid() != 0 {
		return true
	}
	for _, dir := range ancestors(path) {
		if !searchable(dir) {
			return false
		}
	}
	return true
}

// unreachable returns, as root, the topmost folder above each bind that
// the unprivileged uid cannot search (a mktemp -d folder, 0700): bwrap,
// running as that uid, could not mount beneath it. The sandbox puts an
// empty tmpfs there, on which bwrap makes the path to the bind: what else
// the folder holds stays hidden.
func unreachable(binds []bind) []string {
	if os.Getuid() != 0 {
		return nil
	}
	var out []string
	for _, b := range binds {
		for _, dir := range ancestors(b.path) {
			if hidden(dir) || bound(dir, binds) {
				break
			}
			if !searchable(dir) {
				out = append(out, dir)
				break
			}
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// ancestors returns the folders above path, from / down.
func ancestors(path string) []string {
	var dirs []string
	for dir := filepath.Dir(path); ; dir = filepath.Dir(dir) {
		dirs = append(dirs, dir)
		if dir == "/" || dir == "." {
			break
		}
	}
	slices.Reverse(dirs)
	return dirs
}

// bound reports whether dir is, or lies in, one of binds.
func bound(dir string, binds []bind) bool {
	for _, b := range binds {
		if within(dir, b.path) {
			return true
		}
	}
	return false
}

// searchable reports whether others may search dir (its mode has o+x).
func searchable(dir string) bool {
	fi, err := os.Stat(dir)
	return err == nil && fi.Mode().Perm()&0o001 != 0
}
