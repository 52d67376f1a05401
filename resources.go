package step

import (
	"fmt"
	"os"
	"syscall"

	"kusaw.dev/step/protocol"
	"kusaw.dev/step/sandbox"
)

// Warning codes of the runner's process handling and limits.
const (
	// WarnProcessesLeft: the step exited and left processes running (in
	// its group, or detached and re-parented to the runner; under bwrap,
	// anywhere in the sandbox, as its init reports them); the runner
	// killed them. The message names each pid and command.
	WarnProcessesLeft = "processes_left"
	// WarnPidsLimit and WarnMemoryLimit: the step hit its bound on
	// processes or memory, and still gave an ok result.
	WarnPidsLimit   = "pids_limit"
	WarnMemoryLimit = "memory_limit"
)

// Resources is what the step's whole process tree used: from the
// sandbox's cgroup when it had one, else from the rusage of the
// processes the runner waited for (then the peak is the largest single
// process's).
type Resources struct {
	PeakMemoryBytes int64 `json:"peak_memory_bytes"`
	CPUms           int64 `json:"cpu_ms"`
}

// SandboxRecord is the sandbox the step actually ran in.
type SandboxRecord struct {
	Backend string `json:"backend"` // bwrap, seatbelt, or none
	// UID is the host uid the step ran as: 65534 when a root runner
	// sandboxes it, else the runner's own.
	UID     int      `json:"uid"`
	Network string   `json:"network"` // open or allowlist
	Allow   []string `json:"allow"`   // the egress allowlist
	// PidsMax and MemoryMaxBytes are the bounds enforced; 0 means none.
	// The egress proxy's counts are the record's own "egress".
	PidsMax        int   `json:"pids_max"`
	MemoryMaxBytes int64 `json:"memory_max_bytes"`
}

// recordSandbox writes down the sandbox the step ran in and what it
// used, and makes a bound it hit the verdict of an attempt that did not
// succeed. Call it after judge.
func (at *attempt) recordSandbox(out *output) {
	if at.plan != nil {
		at.rec.Sandbox = at.sandboxRecord()
	}
	at.rec.Resources = at.resources(out)
	pids, memory := at.sb.LimitHit()
	pidsMax, memoryMax := at.sb.Limits()
	switch {
	case memory && at.rec.Status != protocol.StatusOK:
		at.rec.Status, at.rec.ReasonCode = protocol.StatusKilled, protocol.ReasonMemoryLimit
		at.rec.Message = fmt.Sprintf("the step went over its memory limit of %d bytes (--memory-max) and the kernel killed it", memoryMax)
	case memory:
		at.warn(WarnMemoryLimit, fmt.Sprintf("a process of the step went over the memory limit of %d bytes (--memory-max) and the kernel killed it", memoryMax))
	case pids && at.rec.Status != protocol.StatusOK:
		at.rec.Status, at.rec.ReasonCode = protocol.StatusFail, protocol.ReasonPidsLimit
		at.rec.Message = fmt.Sprintf("the step hit its limit of %d processes (--pids-max): a fork failed", pidsMax)
	case pids:
		at.warn(WarnPidsLimit, fmt.Sprintf("the step hit its limit of %d processes (--pids-max): a fork failed", pidsMax))
	}
}

func (at *attempt) sandboxRecord() *SandboxRecord {
	pol := at.plan.Policy
	r := &SandboxRecord{Backend: pol.Backend, UID: os.Getuid(), Network: pol.Network, Allow: pol.Allow}
	if r.Backend == "" {
		r.Backend, r.Network = "none", sandbox.NetworkOpen
	}
	if r.Backend == sandbox.BackendBwrap && r.UID == 0 {
		r.UID = sandbox.UnprivilegedUID
	}
	if r.Allow == nil {
		r.Allow = []string{}
	}
	r.PidsMax, r.MemoryMaxBytes = at.sb.Limits()
	return r
}

// resources reads the cgroup's figures, or the leader's rusage.
func (at *attempt) resources(out *output) *Resources {
	if u, ok := at.sb.Usage(); ok {
		return &Resources{PeakMemoryBytes: u.PeakMemoryBytes, CPUms: u.CPUms}
	}
	if out == nil || out.state == nil {
		return nil
	}
	ru, ok := out.state.SysUsage().(*syscall.Rusage)
	if !ok {
		return nil
	}
	cpu := ru.Utime.Nano() + ru.Stime.Nano()
	return &Resources{PeakMemoryBytes: maxRSSBytes(ru), CPUms: cpu / 1e6}
}
