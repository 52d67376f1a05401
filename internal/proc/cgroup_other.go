//go:build unix && !linux

package proc

import (
	"errors"
	"os/exec"
)

// Limits bound a step's whole process tree.
type Limits struct {
	PidsMax   int
	MemoryMax int64
}

// Usage is what a step's process tree used.
type Usage struct {
	PeakMemoryBytes int64
	CPUms           int64
}

// Cgroup is a Linux control group; elsewhere there is none.
type Cgroup struct{}

// NewCgroup fails: control groups are a Linux feature.
func NewCgroup(Limits) (*Cgroup, error) { return nil, ErrUnsupported }

func (c *Cgroup) Dirs() []string       { return nil }
func (c *Cgroup) EnforcesPids() bool   { return false }
func (c *Cgroup) EnforcesMemory() bool { return false }
func (c *Cgroup) Usage() Usage         { return Usage{} }
func (c *Cgroup) PidsHit() bool        { return false }
func (c *Cgroup) MemoryHit() bool      { return false }
func (c *Cgroup) Remove() error        { return nil }

// JoinCgroup fails: control groups are a Linux feature.
func JoinCgroup([]string) error { return errors.ErrUnsupported }

func (c *Cgroup) enter(*exec.Cmd) func(int) error { return func(int) error { return nil } }
func (c *Cgroup) procs() []int                    { return nil }
