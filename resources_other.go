//go:build !linux

package step

import "syscall"

// maxRSSBytes is the peak resident size of ru: bytes on macOS.
func maxRSSBytes(ru *syscall.Rusage) int64 { return int64(ru.Maxrss) }
