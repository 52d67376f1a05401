package proc

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
)

// WithEnv returns the live processes whose environment holds entry
// ("NAME=value"): those an attempt started, wherever they run, when entry
// marks it. A process already on its way out is not one: a runner may have
// SIGKILLed it, and on a loaded machine the kernel may not have finished it
// yet. It finds nothing without /proc.
func WithEnv(entry string) []int {
	want := []byte(entry)
	var pids []int
	paths, _ := filepath.Glob("/proc/[0-9]*/environ")
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		for kv := range bytes.SplitSeq(data, []byte{0}) {
			if bytes.Equal(kv, want) {
				pid, _ := strconv.Atoi(filepath.Base(filepath.Dir(p)))
				if !dying(pid) {
					pids = append(pids, pid)
				}
				break
			}
		}
	}
	return pids
}

// pfExiting is PF_EXITING in /proc/PID/stat's flags: the process is in
// exit().
const pfExiting = 0x4

// dying reports whether pid is exiting, a zombie, or has SIGKILL pending.
func dying(pid int) bool {
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return true // gone
	}
	// The fields after the command, which is in parentheses and may hold
	// anything: state is the first, flags the seventh.
	i := bytes.LastIndexByte(stat, ')')
	fields := bytes.Fields(stat[i+1:])
	if len(fields) < 7 {
		return false
	}
	if s := fields[0][0]; s == 'Z' || s == 'X' || s == 'x' {
		return true
	}
	if flags, err := strconv.ParseUint(string(fields[6]), 10, 64); err == nil && flags&pfExiting != 0 {
		return true
	}
	return killPending(pid)
}

// killPending reports whether SIGKILL is pending for pid, to the thread
// or to the whole process (SigPnd, ShdPnd in /proc/PID/status).
func killPending(pid int) bool {
	status, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return true
	}
	for line := range bytes.SplitSeq(status, []byte("\n")) {
		name, mask, ok := bytes.Cut(line, []byte(":"))
		if !ok || (string(name) != "SigPnd" && string(name) != "ShdPnd") {
			continue
		}
		if bits, err := strconv.ParseUint(string(bytes.TrimSpace(mask)), 16, 64); err == nil && bits&(1<<(syscall.SIGKILL-1)) != 0 {
			return true
		}
	}
	return false
}
