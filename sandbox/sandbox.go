package sandbox

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"

	"kusaw.dev/step/internal/proc"
)

// Sandbox is what [Wrap] set up for one command: the egress proxy and the
// files handed to the backend. Close it after the command has exited.
type Sandbox struct {
	proxy    *Proxy
	ln       net.Listener
	proxyURL string        // what HTTP_PROXY says inside
	served   chan struct{} // closed when the proxy's Serve returns
	log      *egressLog    // the egress log; nil when none
	files    []*os.File    // bind sources given to the backend
	dir      string        // private folder of the proxy's socket
	dirLock  *os.File      // held while dir is in use; see makeEgressDir

	reportR, reportW *os.File // the init's report of what the step left (see Leftovers)
	stopR, stopW     *os.File // the supervisor's stop notice to the init (see RunInit)

	cgroup    *proc.Cgroup // the attempt's cgroup; nil when none
	pidsMax   int          // the process bound enforced; 0 when none
	memoryMax int64        // the memory bound enforced; 0 when none
	usage     *proc.Usage  // read from the cgroup by Close
	pidsHit   bool
	memoryHit bool
}

// Limits returns the bounds the sandbox enforces: processes and memory
// bytes, 0 for none.
func (s *Sandbox) Limits() (pidsMax int, memoryMax int64) {
	if s == nil {
		return 0, 0
	}
	return s.pidsMax, s.memoryMax
}

// Usage returns what the step's process tree used, from the sandbox's
// cgroup, once Close has run; false when there was none.
func (s *Sandbox) Usage() (proc.Usage, bool) {
	if s == nil || s.usage == nil {
		return proc.Usage{}, false
	}
	return *s.usage, true
}

// LimitHit reports, once Close has run, whether the step hit its
// process bound (a fork failed) or its memory bound (the kernel killed a
// process of it).
func (s *Sandbox) LimitHit() (pids, memory bool) {
	if s == nil {
		return false, false
	}
	return s.pidsHit, s.memoryHit
}

// Wrap decorates cmd (built with exec.Command, not yet started) so that it
// runs inside the sandbox p describes: cmd.Path becomes the backend,
// cmd.Args its arguments then the step's, and cmd.ExtraFiles gains the
// writable folders. With a network allowlist, Wrap starts the egress proxy
// and adds the proxy variables to cmd.Env. A nil p or an empty Backend
// leaves cmd as it is. The caller must call Close on the result after
// cmd.Wait (or if cmd never starts). On an error cmd may be half changed
// and must not be started.
func Wrap(cmd *exec.Cmd, p *Policy) (*Sandbox, error) {
	s := &Sandbox{}
	if p == nil || p.Backend == "" {
		return s, nil
	}
	if cmd.Err != nil {
		return nil, cmd.Err
	}
	if p.Backend != nativeBackend() {
		return nil, fmt.Errorf("%w: %s does not run on this system", ErrUnavailable, p.Backend)
	}
	if err := s.setup(cmd, p); err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

func (s *Sandbox) setup(cmd *exec.Cmd, p *Policy) error {
	if cmd.Env == nil {
		cmd.Env = cmd.Environ()
	}
	if p.Network == NetworkAllowlist {
		if err := s.startProxy(p); err != nil {
			return err
		}
		cmd.Env = append(cmd.Env, proxyEnv(s.proxyURL)...)
	}
	return wrap(cmd, p, s)
}

// startProxy opens the egress log, listens where the backend can reach,
// and serves the proxy until Close.
func (s *Sandbox) startProxy(p *Policy) error {
	s.proxy = &Proxy{Allow: p.Allow, Inject: p.Inject, Resolver: p.Resolver, Dial: p.Dial}
	log, err := openEgressLog(p)
	if err != nil {
		return err
	}
	if log != nil {
		s.log, s.proxy.Log = log, log
	}
	if err := listenProxy(s, p); err != nil {
		return fmt.Errorf("sandbox: egress proxy: %w", err)
	}
	s.served = make(chan struct{})
	go func() {
		defer close(s.served)
		_ = s.proxy.Serve(s.ln) // returns when Close closes the listener
	}()
	return nil
}

// proxyEnv returns the variables that send a step's HTTP through url.
func proxyEnv(url string) []string {
	var env []string
	for _, name := range []string{"HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY"} {
		env = append(env, name+"="+url, lowerASCII(name)+"="+url)
	}
	return append(env,
		"NO_PROXY=localhost,127.0.0.1,::1", "no_proxy=localhost,127.0.0.1,::1",
		"NODE_USE_ENV_PROXY=1")
}

func lowerASCII(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

// Close stops the proxy, waits for its connections to end, and closes
// every file Wrap opened. It is safe on a nil or empty Sandbox.
func (s *Sandbox) Close() error {
	if s == nil {
		return nil
	}
	var errs []error
	if s.ln != nil {
		errs = append(errs, s.ln.Close())
		<-s.served
		s.proxy.Wait()
	}
	for _, f := range s.files {
		errs = append(errs, f.Close())
	}
	s.closeReportWriter()
	for _, f := range []*os.File{s.reportR, s.stopR, s.stopW} {
		if f != nil {
			errs = append(errs, f.Close())
		}
	}
	s.reportR, s.stopR, s.stopW = nil, nil, nil
	errs = append(errs, s.log.close())
	if s.dir != "" {
		errs = append(errs, os.RemoveAll(s.dir))
	}
	if s.dirLock != nil {
		errs = append(errs, s.dirLock.Close())
	}
	if s.cgroup != nil {
		u := s.cgroup.Usage()
		s.usage = &u
		s.pidsHit, s.memoryHit = s.cgroup.PidsHit(), s.cgroup.MemoryHit()
		errs = append(errs, s.cgroup.Remove())
		s.cgroup = nil
	}
	s.ln, s.files, s.dir, s.dirLock = nil, nil, "", nil
	return errors.Join(errs...)
}

// RunHelper runs the hidden subcommand args[0] names, [BridgeCommand],
// [SuperviseCommand] or [InitCommand], reporting an error on stderr, and returns its exit
// status; ok is false (and nothing ran) when args names neither. The
// runner's main calls it first, and so must the TestMain of any test
// binary that is the Self of a policy it wraps with.
func RunHelper(ctx context.Context, args []string, stdin, stdout, stderr *os.File) (code int, ok bool) {
	if len(args) == 0 {
		return 0, false
	}
	var err error
	switch args[0] {
	case BridgeCommand:
		code, err = RunBridge(ctx, args[1:], stdin, stdout, stderr)
	case SuperviseCommand:
		code, err = RunSupervisor(args[1:], stdin, stdout, stderr)
	case InitCommand:
		code, err = RunInit(args[1:], stdin, stdout, stderr)
	default:
		return 0, false
	}
	if err != nil {
		fmt.Fprintf(stderr, "kusaw-step: %v\n", err)
	}
	return code, true
}

// self returns the runner's binary, for the supervisor, the init and the
// bridge.
func (p *Policy) self() (string, error) {
	if p.Self != "" {
		return filepath.Abs(p.Self)
	}
	return os.Executable()
}

// program returns cmd's program as an absolute path.
func program(cmd *exec.Cmd) (string, error) {
	if filepath.IsAbs(cmd.Path) {
		return cmd.Path, nil
	}
	dir := cmd.Dir
	if dir == "" {
		var err error
		if dir, err = os.Getwd(); err != nil {
			return "", err
		}
	}
	return filepath.Join(dir, cmd.Path), nil
}

// bridgeArgs returns the argv that runs argv behind the bridge from
// 127.0.0.1:port to the proxy's socket (see [RunBridge]).
func bridgeArgs(self, socket string, port int, argv []string) []string {
	out := []string{self, BridgeCommand, socket, strconv.Itoa(port), "--"}
	return append(out, argv...)
}
