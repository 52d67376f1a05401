package proc

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// Left is a process a step left behind when it exited: a member of its
// group, or a descendant that left the group (a setsid daemon) and was
// re-parented to the runner, its subreaper.
type Left struct {
	Pid     int
	Command string // its argv, joined by spaces (its name when that is empty)
}

func (l Left) String() string { return fmt.Sprintf("%d (%s)", l.Pid, l.Command) }

// procStat is what Leftovers reads of /proc/PID/stat.
type procStat struct {
	pid, ppid, pgrp int
	state           byte
	start           uint64 // clock ticks after boot
	comm            string
}

// readStat parses /proc/PID/stat, whose second field (the command, in
// parentheses) may hold spaces and parentheses.
func readStat(pid int) (procStat, bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return procStat{}, false
	}
	open, end := strings.IndexByte(string(b), '('), strings.LastIndexByte(string(b), ')')
	if open < 0 || end < open {
		return procStat{}, false
	}
	f := strings.Fields(string(b[end+1:]))
	if len(f) < 20 {
		return procStat{}, false
	}
	s := procStat{pid: pid, state: f[0][0], comm: string(b[open+1 : end])}
	s.ppid, _ = strconv.Atoi(f[1])
	s.pgrp, _ = strconv.Atoi(f[2])
	s.start, _ = strconv.ParseUint(f[19], 10, 64)
	return s, true
}

// allStats reads every live process of /proc (zombies left out).
func allStats() []procStat {
	paths, _ := filepath.Glob("/proc/[0-9]*")
	var out []procStat
	for _, p := range paths {
		pid, err := strconv.Atoi(filepath.Base(p))
		if err != nil {
			continue
		}
		if s, ok := readStat(pid); ok && s.state != 'Z' && s.state != 'X' {
			out = append(out, s)
		}
	}
	return out
}

// command returns the argv of pid joined by spaces, or its name.
func command(s procStat) string {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(s.pid) + "/cmdline")
	if argv := strings.TrimRight(string(b), "\x00"); err == nil && argv != "" {
		return strings.ReplaceAll(argv, "\x00", " ")
	}
	return s.comm
}

// noteMembers records the live members of the group other than the
// leader, before Reap kills them.
func (p *Process) noteMembers() {
	if p.gone.Load() || !p.hasExited() || p.killed.Load() || !p.Alive() {
		return // Alive: an empty group needs no walk of every process
	}
	for _, s := range allStats() {
		if s.pgrp == p.pid {
			p.addLeft(s)
		}
	}
}

func (p *Process) addLeft(s procStat) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, l := range p.left {
		if l.Pid == s.pid {
			return
		}
	}
	p.left = append(p.left, Left{Pid: s.pid, Command: command(s)})
}

// KillOrphans kills what the step left behind and returns it: the
// members of its group that were alive when [Process.Reap] ended it and,
// when the step was born in a cgroup ([StartIn]), every other process
// still there: descendants that left the group (a setsid daemon),
// wherever they were re-parented. Call it after Reap.
func (p *Process) KillOrphans() []Left {
	if p.cgroup != nil {
		for _, pid := range p.cgroup.procs() {
			s, ok := readStat(pid)
			if ok && s.pgrp == p.pid && p.killed.Load() {
				continue // killed by Stop with the group, dying
			}
			if ok && s.state != 'Z' && s.state != 'X' {
				p.addLeft(s)
				_ = syscall.Kill(pid, syscall.SIGKILL)
				var ws syscall.WaitStatus
				_, _ = syscall.Wait4(pid, &ws, syscall.WNOHANG, nil) // when it is the runner's child
			}
		}
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]Left(nil), p.left...)
}

// Descendants returns the live descendants of the calling process, as
// /proc shows them, split by whether each is in process group pgrp (the
// step's). Run by a child subreaper once the step it started has exited,
// that is everything left running below it: the members of the step's
// group and those that left it (a setsid daemon), re-parented to it. It
// never names a process outside the caller's tree, wherever it runs.
func Descendants(pgrp int) (grouped, detached []Left) {
	for _, s := range descendantStats(os.Getpid()) {
		l := Left{Pid: s.pid, Command: command(s)}
		if s.pgrp == pgrp {
			grouped = append(grouped, l)
		} else {
			detached = append(detached, l)
		}
	}
	return grouped, detached
}

// DescendantPids returns the pids of the live descendants of the calling
// process but those in process group except (-1: none excepted).
func DescendantPids(except int) []int {
	var pids []int
	for _, s := range descendantStats(os.Getpid()) {
		if except < 0 || s.pgrp != except {
			pids = append(pids, s.pid)
		}
	}
	return pids
}

// descendantStats reads the live processes below root, from /proc.
func descendantStats(root int) []procStat {
	entries, _ := os.ReadDir("/proc")
	parent := make(map[int]int)
	var live []procStat
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == root {
			continue
		}
		s, ok := readStat(pid)
		if !ok {
			continue
		}
		parent[pid] = s.ppid
		if s.state != 'Z' && s.state != 'X' {
			live = append(live, s)
		}
	}
	var out []procStat
	for _, s := range live {
		seen := 0
		for p := s.ppid; p > 0 && seen <= len(parent); p = parent[p] {
			if p == root {
				out = append(out, s)
				break
			}
			seen++
		}
	}
	return out
}
