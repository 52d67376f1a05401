package sandbox

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"kusaw.dev/step/protocol"
)

// Backends, as KUSAW_SANDBOX and the request's sandbox.backend name them.
const (
	BackendBwrap    = "bwrap"
	BackendSeatbelt = "seatbelt"
)

// Network policies.
const (
	NetworkOpen      = "open"
	NetworkAllowlist = "allowlist"
)

// Errors a caller branches on; each maps to one reason code.
var (
	// ErrUnavailable is returned by [NewPolicy] and [Wrap] when a sandbox is
	// required and no backend works here (reason sandbox_unavailable).
	ErrUnavailable = errors.New("sandbox: " + protocol.ReasonSandboxUnavailable)
	// ErrSecretNotDeclared is returned by [BuildEnv] for a secret the
	// operator provides that the step did not declare (secret_not_declared).
	ErrSecretNotDeclared = errors.New("sandbox: " + protocol.ReasonSecretNotDeclared)
	// ErrDependencyMissing is returned by [CheckPaths] for needs_paths
	// entries not visible or not writable in the sandbox (dependency_missing).
	ErrDependencyMissing = errors.New("sandbox: " + protocol.ReasonDependencyMissing)
	// ErrUnsupported is returned by [Wrap] on systems with no backend at all.
	// It wraps [errors.ErrUnsupported].
	ErrUnsupported = fmt.Errorf("sandbox: %w", errors.ErrUnsupported)
)

// Flags are the operator's choices for local runs.
type Flags struct {
	// Mode (--sandbox) is "auto" (or ""): this system's backend when it
	// works, unless the request says mode off, and fail only when the
	// request requires a sandbox; "bwrap" or "seatbelt": that backend or
	// fail; "off": never, and fail if the request requires a sandbox.
	Mode string
	// AllowHosts (--allow-host) are added to the allowlist; any makes the
	// network an allowlist.
	AllowHosts []string
	// Writable (--writable) are host folders the step may also write.
	Writable []string
	// Readable are host files and folders the step may read although the
	// sandbox hides them: --readable DIRs (a home: /root, /home, the
	// runner's $HOME, or a folder in one) and the files the operator's
	// config names for the step (the slipway kind's binary, agent and
	// source file).
	Readable []string
	// PidsMax (--pids-max) bounds the step's processes; 0 means
	// DefaultPidsMax, a negative value no limit.
	PidsMax int
	// MemoryMax (--memory-max) bounds the memory of the step's process
	// tree in bytes; 0 means no limit.
	MemoryMax int64
}

// UnprivilegedUID is the uid (and gid) a sandboxed step runs as, inside
// and on the host, when the runner is root (bwrap); never root itself.
const UnprivilegedUID = 65534

// DefaultPidsMax is the default bound on a sandboxed step's processes.
const DefaultPidsMax = 512

// Policy is what an attempt's sandbox allows. Build it with [NewPolicy];
// the zero value is no sandbox.
type Policy struct {
	// Backend is BackendBwrap, BackendSeatbelt, or "" for no sandbox. It is
	// the value of KUSAW_SANDBOX.
	Backend string
	// Network is NetworkOpen or NetworkAllowlist.
	Network string
	// Allow are the hosts the egress proxy lets through: exact names and
	// "*.suffix" patterns.
	Allow []string
	// Inject are headers the proxy adds for their host only.
	Inject []Inject
	// Writable are the absolute host folders the step may write: the
	// worktrees, the artifacts dir, sandbox.tmp, sandbox.writable and the
	// --writable flags.
	Writable []string
	// Readable are the absolute host paths the step may read that the
	// sandbox would hide (see [Flags.Readable]): bound read-only.
	Readable []string
	// PidsMax bounds the step's processes (a cgroup, or RLIMIT_NPROC of
	// the unprivileged uid); 0 means none. MemoryMax bounds the memory of
	// its process tree in bytes (a cgroup); 0 means none.
	PidsMax   int
	MemoryMax int64
	// EgressLog is the JSONL file the proxy logs every request to, in the
	// attempt folder; "" discards the log.
	EgressLog string
	// EgressLogCap bounds the egress log like the other logs (the
	// request's log_cap_bytes); 0 means protocol.DefaultLogCapBytes.
	EgressLogCap int64
	// Mask are the secret values masked in the egress log, besides the
	// Inject values, which always are.
	Mask []string
	// Self is the runner's binary, run inside the sandbox as the bridge to
	// the proxy; "" means os.Executable().
	Self string
	// Port is the loopback port of the bridge inside the sandbox; 0 means
	// DefaultPort.
	Port int
	// Terminal says the step's stdin is a pseudo-terminal the runner owns
	// (an interactive step): bwrap then keeps it as the controlling
	// terminal (no --new-session), so job control and SIGWINCH work. What
	// TIOCSTI could inject there only reaches the step's own pty, never the
	// person's terminal.
	Terminal bool
	// Resolver and Dial are the proxy's seams ([Proxy.Resolver],
	// [Proxy.Dial]); nil in production.
	Resolver func(ctx context.Context, host string) ([]netip.Addr, error)
	Dial     func(ctx context.Context, network, addr string) (net.Conn, error)
}

// DefaultPort is the proxy's loopback port inside the sandbox.
const DefaultPort = 3128

// NewPolicy returns the policy of an attempt of req under the operator's
// flags, with the backend resolved: it fails with [ErrUnavailable] when
// the request (sandbox.mode "required") or the flags ("bwrap") need a
// sandbox that does not work here, and never silently runs unsandboxed.
func NewPolicy(req *protocol.Request, f Flags) (*Policy, error) {
	sb := req.Sandbox
	required := sb != nil && sb.Mode == "required"
	backend, err := chooseBackend(sb, f.Mode, required)
	if err != nil {
		return nil, err
	}
	p := &Policy{Backend: backend, Network: NetworkOpen}
	if backend == "" {
		return p, nil
	}
	p.Writable = writable(req, f)
	p.Readable = cleanPaths(f.Readable)
	p.PidsMax, p.MemoryMax = f.PidsMax, f.MemoryMax
	if p.PidsMax == 0 {
		p.PidsMax = DefaultPidsMax
	}
	if p.PidsMax < 0 {
		p.PidsMax = 0
	}
	if sb != nil && sb.Network == NetworkAllowlist || len(f.AllowHosts) > 0 {
		p.Network = NetworkAllowlist
	}
	if sb != nil && sb.Egress != nil {
		p.Allow = append(p.Allow, sb.Egress.Allow...)
	}
	p.Allow = append(p.Allow, f.AllowHosts...)
	return p, nil
}

// chooseBackend resolves the backend from the request and the --sandbox
// mode; "" means no sandbox.
func chooseBackend(sb *protocol.Sandbox, mode string, required bool) (string, error) {
	switch mode {
	case "off":
		if required {
			return "", fmt.Errorf("%w: the request requires a sandbox and --sandbox is off", ErrUnavailable)
		}
		return "", nil
	case BackendBwrap:
		return BackendBwrap, probe(BackendBwrap)
	case BackendSeatbelt:
		return BackendSeatbelt, probe(BackendSeatbelt)
	case "", "auto":
	default:
		return "", fmt.Errorf("sandbox: unknown mode %q (want auto, bwrap, seatbelt or off)", mode)
	}
	if sb != nil && sb.Mode == "off" {
		return "", nil
	}
	native := nativeBackend()
	if sb != nil && sb.Backend != nil && *sb.Backend != native && required {
		return "", fmt.Errorf("%w: the request wants %s, this system has %q", ErrUnavailable, *sb.Backend, native)
	}
	if err := probe(native); err != nil {
		if required {
			return "", err
		}
		return "", nil
	}
	return native, nil
}

// available is Available, a seam for tests.
var available = Available

// probe returns nil when backend works here, else an error matching
// [ErrUnavailable] that says why.
func probe(backend string) error {
	if backend == "" {
		return fmt.Errorf("%w: no sandbox backend on this system", ErrUnavailable)
	}
	if err := available(backend); err != nil {
		return fmt.Errorf("%w: %s: %v", ErrUnavailable, backend, err)
	}
	return nil
}

// writable lists the folders the step may write, cleaned, sorted and
// without duplicates, parents before children.
func writable(req *protocol.Request, f Flags) []string {
	var dirs []string
	if req.Worktree != nil && *req.Worktree != "" {
		dirs = append(dirs, *req.Worktree)
	}
	for _, r := range req.Repos {
		dirs = append(dirs, r.Worktree)
	}
	dirs = append(dirs, req.ArtifactsDir)
	if sb := req.Sandbox; sb != nil {
		dirs = append(dirs, sb.Tmp)
		dirs = append(dirs, sb.Writable...)
	}
	dirs = append(dirs, f.Writable...)
	return cleanPaths(dirs)
}

// cleanPaths returns dirs made absolute, sorted and without duplicates,
// parents before children.
func cleanPaths(dirs []string) []string {
	var out []string
	for _, d := range dirs {
		if d != "" {
			if abs, err := filepath.Abs(d); err == nil {
				out = append(out, abs)
			}
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// port returns the bridge's port inside the sandbox.
func (p *Policy) port() int {
	if p.Port == 0 {
		return DefaultPort
	}
	return p.Port
}

// masked are the host folders hidden by a private tmpfs: no host unix
// socket (X11, D-Bus, docker, ssh-agent) is reachable from inside, and
// no home with its dotfiles and credentials. The runner's $HOME is added
// by [masks].
var masked = []string{"/tmp", "/run", "/var/tmp", "/root", "/home"}

// masks returns the folders the sandbox hides behind an empty tmpfs:
// masked and the runner's $HOME, each once, none inside another.
func masks() []string {
	dirs := slices.Clone(masked)
	if home := os.Getenv("HOME"); filepath.IsAbs(home) && filepath.Clean(home) != "/" {
		dirs = append(dirs, filepath.Clean(home))
	}
	slices.Sort(dirs)
	var out []string
	for _, d := range slices.Compact(dirs) {
		if len(out) == 0 || !within(d, out[len(out)-1]) {
			out = append(out, d)
		}
	}
	return out
}

// hidden reports whether path lies in a folder masked by a tmpfs.
func hidden(path string) bool {
	for _, dir := range masks() {
		if within(path, dir) {
			return true
		}
	}
	return false
}

// bind is a host path the step is given at the same path inside.
type bind struct {
	path string
	rw   bool
}

// binds returns what the sandbox binds, parents first: the writable
// folders, the --readable ones, and the program and its working folder
// dir when the sandbox would hide them or the step could not reach them
// ([reachable]).
func (p *Policy) binds(prog, dir string) []bind {
	var bs []bind
	for _, w := range p.Writable {
		bs = append(bs, bind{w, true})
	}
	for _, r := range p.Readable {
		if !p.inWritable(r) {
			bs = append(bs, bind{r, false})
		}
	}
	for _, path := range []string{prog, dir} {
		if path != "" && !p.granted(path) && (hidden(path) || !reachable(path)) {
			bs = append(bs, bind{path, false})
		}
	}
	slices.SortFunc(bs, func(a, b bind) int { return strings.Compare(a.path, b.path) })
	return slices.CompactFunc(bs, func(a, b bind) bool { return a.path == b.path })
}

// granted reports whether path lies in a folder the step is given.
func (p *Policy) granted(path string) bool {
	if p.inWritable(path) {
		return true
	}
	for _, dir := range p.Readable {
		if within(path, dir) {
			return true
		}
	}
	return false
}

// within reports whether path is dir or lies under it (both clean).
func within(path, dir string) bool {
	return path == dir || strings.HasPrefix(path, dir+"/")
}
