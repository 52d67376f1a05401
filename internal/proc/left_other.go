//go:build unix && !linux

package proc

import "fmt"

// Left is a process a step left behind when it exited.
type Left struct {
	Pid     int
	Command string
}

func (l Left) String() string { return fmt.Sprintf("%d (%s)", l.Pid, l.Command) }

func (p *Process) noteMembers() {}

// KillOrphans returns nothing: finding processes needs Linux's /proc.
func (p *Process) KillOrphans() []Left { return nil }

// Descendants returns nothing: finding processes needs Linux's /proc.
func Descendants(pgrp int) (grouped, detached []Left) { return nil, nil }

// DescendantPids returns nothing: finding processes needs Linux's /proc.
func DescendantPids(except int) []int { return nil }

// WithEnv finds nothing: reading another process's environment needs
// Linux's /proc.
func WithEnv(string) []int { return nil }
