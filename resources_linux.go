package step

import "syscall"

// maxRSSBytes is the peak resident size of ru: kilobytes on Linux.
func maxRSSBytes(ru *syscall.Rusage) int64 { return ru.Maxrss * 1024 }
