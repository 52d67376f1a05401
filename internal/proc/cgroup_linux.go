package proc

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"

	"golang.org/x/sys/unix"
)

// Limits bound a step's whole process tree.
type Limits struct {
	PidsMax   int   // processes (and threads); 0 means no limit
	MemoryMax int64 // bytes; 0 means no limit
}

// Usage is what a step's process tree used.
type Usage struct {
	PeakMemoryBytes int64
	CPUms           int64
}

// Cgroup is the control group of one sandboxed attempt, below the
// runner's own: on cgroup v2 one folder, on v1 one per controller (pids,
// memory, cpuacct) that the machine has. The process that joins it (the
// sandbox's supervisor) takes everything it starts along: an
// unprivileged step cannot leave it.
type Cgroup struct {
	v2                    string // the v2 folder, or ""
	pids, memory, cpuacct string // the v1 folders made, or ""
	limits                Limits
}

var cgroupSeq atomic.Int64

// NewCgroup makes an attempt's cgroup with limits l. It fails when the
// runner may not make one here (not root, no cgroup file system); the
// caller then goes without, or falls back to rlimits.
func NewCgroup(l Limits) (*Cgroup, error) {
	own, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		return nil, fmt.Errorf("proc: cgroup: %w", err)
	}
	name := fmt.Sprintf("kusaw-%d-%d", os.Getpid(), cgroupSeq.Add(1))
	c := &Cgroup{limits: l}
	var st unix.Statfs_t
	if unix.Statfs("/sys/fs/cgroup", &st) == nil && st.Type == unix.CGROUP2_SUPER_MAGIC {
		err = c.makeV2(own, name)
	} else {
		err = c.makeV1(own, name)
	}
	if err != nil {
		c.Remove()
		return nil, fmt.Errorf("proc: cgroup: %w", err)
	}
	return c, nil
}

// makeV2 makes the folder below the runner's ("0::/path") and enables
// pids and memory for it where the parent allows.
func (c *Cgroup) makeV2(own []byte, name string) error {
	parent := ""
	for _, line := range strings.Split(string(own), "\n") {
		if p, ok := strings.CutPrefix(line, "0::"); ok {
			parent = filepath.Join("/sys/fs/cgroup", p)
		}
	}
	if parent == "" {
		return errors.New("no cgroup v2 entry in /proc/self/cgroup")
	}
	_ = os.WriteFile(filepath.Join(parent, "cgroup.subtree_control"), []byte("+pids +memory"), 0)
	dir := filepath.Join(parent, name)
	if err := os.Mkdir(dir, 0o755); err != nil {
		return err
	}
	c.v2 = dir
	return errors.Join(
		writeLimit(dir, "pids.max", int64(c.limits.PidsMax)),
		writeLimit(dir, "memory.max", c.limits.MemoryMax))
}

// makeV1 makes a folder in each v1 hierarchy of pids, memory and
// cpuacct, below the runner's own there.
func (c *Cgroup) makeV1(own []byte, name string) error {
	for _, line := range strings.Split(string(own), "\n") {
		f := strings.SplitN(line, ":", 3)
		if len(f) != 3 {
			continue
		}
		for _, ctl := range strings.Split(f[1], ",") {
			var dst *string
			switch ctl {
			case "pids":
				dst = &c.pids
			case "memory":
				dst = &c.memory
			case "cpuacct":
				dst = &c.cpuacct
			default:
				continue
			}
			dir := filepath.Join("/sys/fs/cgroup", f[1], f[2], name)
			if _, err := os.Stat(filepath.Join("/sys/fs/cgroup", f[1])); err != nil {
				dir = filepath.Join("/sys/fs/cgroup", ctl, f[2], name)
			}
			if err := os.Mkdir(dir, 0o755); err != nil {
				return err
			}
			*dst = dir
		}
	}
	if c.pids == "" && c.memory == "" {
		return errors.New("no pids or memory controller")
	}
	var errs []error
	if c.pids != "" {
		errs = append(errs, writeLimit(c.pids, "pids.max", int64(c.limits.PidsMax)))
	}
	if c.memory != "" {
		errs = append(errs, writeLimit(c.memory, "memory.limit_in_bytes", c.limits.MemoryMax))
		if c.limits.MemoryMax > 0 { // swap too, where the kernel counts it
			_ = os.WriteFile(filepath.Join(c.memory, "memory.memsw.limit_in_bytes"), []byte(strconv.FormatInt(c.limits.MemoryMax, 10)), 0)
		}
	}
	return errors.Join(errs...)
}

func writeLimit(dir, file string, v int64) error {
	if v <= 0 {
		return nil
	}
	return os.WriteFile(filepath.Join(dir, file), []byte(strconv.FormatInt(v, 10)), 0)
}

// Dirs returns the folders a process joins, for [JoinCgroup].
func (c *Cgroup) Dirs() []string {
	var out []string
	for _, d := range []string{c.v2, c.pids, c.memory, c.cpuacct} {
		if d != "" {
			out = append(out, d)
		}
	}
	return out
}

// EnforcesPids reports whether the cgroup bounds the process count.
func (c *Cgroup) EnforcesPids() bool {
	return c.limits.PidsMax > 0 && (c.pids != "" || c.v2 != "" && exists(c.v2, "pids.max"))
}

// EnforcesMemory reports whether the cgroup bounds memory.
func (c *Cgroup) EnforcesMemory() bool {
	return c.limits.MemoryMax > 0 && (c.memory != "" || c.v2 != "" && exists(c.v2, "memory.max"))
}

// JoinCgroup moves the calling process into each of dirs.
func JoinCgroup(dirs []string) error {
	pid := []byte(strconv.Itoa(os.Getpid()))
	for _, d := range dirs {
		if err := os.WriteFile(filepath.Join(d, "cgroup.procs"), pid, 0); err != nil {
			return fmt.Errorf("proc: join cgroup %s: %w", d, err)
		}
	}
	return nil
}

// Usage returns the tree's peak memory and CPU time; a figure the
// machine does not keep is 0.
func (c *Cgroup) Usage() Usage {
	var u Usage
	if c.v2 != "" {
		u.PeakMemoryBytes = readInt(c.v2, "memory.peak")
		u.CPUms = keyed(c.v2, "cpu.stat", "usage_usec") / 1000
		return u
	}
	if c.memory != "" {
		u.PeakMemoryBytes = readInt(c.memory, "memory.max_usage_in_bytes")
	}
	if c.cpuacct != "" {
		u.CPUms = readInt(c.cpuacct, "cpuacct.usage") / 1e6
	}
	return u
}

// PidsHit reports whether a fork failed at the pids limit.
func (c *Cgroup) PidsHit() bool {
	dir := c.pids
	if c.v2 != "" {
		dir = c.v2
	}
	return dir != "" && keyed(dir, "pids.events", "max") > 0
}

// MemoryHit reports whether the kernel killed a process at the memory
// limit.
func (c *Cgroup) MemoryHit() bool {
	if c.v2 != "" {
		return keyed(c.v2, "memory.events", "oom_kill") > 0
	}
	return c.memory != "" && (keyed(c.memory, "memory.oom_control", "oom_kill") > 0 ||
		c.limits.MemoryMax > 0 && readInt(c.memory, "memory.failcnt") > 0 && readInt(c.memory, "memory.max_usage_in_bytes") >= c.limits.MemoryMax)
}

// Remove kills what is left in the cgroup and removes its folders.
func (c *Cgroup) Remove() error {
	var errs []error
	for _, d := range c.Dirs() {
		for range 500 { // killed processes leave within moments; at most 5 s
			pids := procsIn(d)
			if len(pids) == 0 {
				break
			}
			for _, pid := range pids {
				_ = unix.Kill(pid, unix.SIGKILL)
			}
			_ = unix.Nanosleep(&unix.Timespec{Nsec: 10e6}, nil)
		}
		if err := os.Remove(d); err != nil && !errors.Is(err, os.ErrNotExist) {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

func exists(dir, file string) bool {
	_, err := os.Stat(filepath.Join(dir, file))
	return err == nil
}

func readInt(dir, file string) int64 {
	b, err := os.ReadFile(filepath.Join(dir, file))
	if err != nil {
		return 0
	}
	n, _ := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
	return n
}

// keyed reads the value of key in a "key value" per line file.
func keyed(dir, file, key string) int64 {
	b, err := os.ReadFile(filepath.Join(dir, file))
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, key+" "); ok {
			n, _ := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
			return n
		}
	}
	return 0
}

// enter makes the child that cmd forks from the calling (locked) thread
// be born in c, and returns what completes it once cmd has started, given
// the child's pid. On v2 clone3 places it (CLONE_INTO_CGROUP). On v1 no
// fork can choose its cgroup, and moving the runner's thread in for the
// fork would take along any thread the Go runtime starts from it meanwhile,
// and with it whatever another goroutine forks there (another attempt's
// step, which this attempt would then kill as its own). So the child is
// traced (PTRACE_TRACEME): it stops at its exec, before the step runs a
// single instruction, and is moved in, then let go. A nil c does nothing.
func (c *Cgroup) enter(cmd *exec.Cmd) (placed func(pid int) error) {
	if c == nil {
		return func(int) error { return nil }
	}
	if c.v2 != "" {
		fd, err := unix.Open(c.v2, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
		if err != nil {
			return func(int) error { return nil }
		}
		cmd.SysProcAttr.UseCgroupFD, cmd.SysProcAttr.CgroupFD = true, fd
		return func(int) error {
			unix.Close(fd) // the child is in: a failed close is no reason to stop it
			return nil
		}
	}
	if !canTrace() {
		return func(int) error { return nil } // born outside: only its group is tracked
	}
	cmd.SysProcAttr.Ptrace = true
	return c.placeTraced
}

// canTrace reports whether a child may ask to be traced: not where the
// Yama module forbids all tracing (ptrace_scope 3), under which the
// step's start would fail.
func canTrace() bool {
	b, err := os.ReadFile("/proc/sys/kernel/yama/ptrace_scope")
	return err != nil || strings.TrimSpace(string(b)) != "3"
}

// placeTraced moves the traced child pid, stopped at its exec, into c's v1
// folders and lets it go. It must run on the thread that forked it, its
// tracer. A child that died before it stopped is left to the caller's
// Wait.
func (c *Cgroup) placeTraced(pid int) error {
	var info unix.Siginfo
	for {
		// WNOWAIT: an exit stays for cmd.Wait to collect.
		err := unix.Waitid(unix.P_PID, pid, &info, unix.WSTOPPED|unix.WEXITED|unix.WNOWAIT, nil)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil {
			return fmt.Errorf("proc: wait for the traced step: %w", err)
		}
		break
	}
	if info.Code != cldTrapped {
		return nil // it died first: nothing runs, nothing to place
	}
	var errs []error
	for _, d := range c.Dirs() {
		errs = append(errs, os.WriteFile(filepath.Join(d, "cgroup.procs"), []byte(strconv.Itoa(pid)), 0))
	}
	if err := unix.PtraceDetach(pid); err != nil {
		_ = unix.Kill(pid, unix.SIGKILL) // stopped for good otherwise
		return fmt.Errorf("proc: let the step go: %w", err)
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("proc: move the step into its cgroup: %w", err)
	}
	return nil
}

// cldTrapped is the siginfo code of a traced child's stop (CLD_TRAPPED).
const cldTrapped = 4

// procs returns the processes in c, the runner left out.
func (c *Cgroup) procs() []int {
	dirs := c.Dirs()
	if len(dirs) == 0 {
		return nil
	}
	return procsIn(dirs[0])
}

// procsIn returns the processes in the cgroup folder dir, the runner
// left out.
func procsIn(dir string) []int {
	b, _ := os.ReadFile(filepath.Join(dir, "cgroup.procs"))
	var pids []int
	for _, f := range strings.Fields(string(b)) {
		if pid, err := strconv.Atoi(f); err == nil && pid != os.Getpid() {
			pids = append(pids, pid)
		}
	}
	return pids
}
