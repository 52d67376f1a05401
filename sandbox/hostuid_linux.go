package sandbox

import (
	"os"
	"path/filepath"
	"strconv"
	"syscall"

	"golang.org/x/sys/unix"
)

// A root runner's sandbox runs, on the host, as a uid of its own, taken
// from a range no account uses (the step still is [UnprivilegedUID]
// inside). Where no cgroup can be made, the process bound is the
// RLIMIT_NPROC of that uid: shared by every sandbox running at once, one
// step could use up another's bound, and steps could signal each other.
const (
	hostUIDBase  = 2_000_000_000 // far above any account's uid or subuid range
	hostUIDCount = 65536
	hostUIDLocks = "/run/kusaw-step/uids" // a lock file per uid in use
)

// lockHostUID takes the first host uid of the range that no other sandbox
// holds, and returns it with the lock file that holds it until closed.
// Where the lock folder cannot be used safely it falls back to
// UnprivilegedUID, shared, and a nil lock.
func lockHostUID() (uint32, *os.File) {
	if !privateDir(hostUIDLocks) {
		return UnprivilegedUID, nil
	}
	for n := range hostUIDCount {
		f, err := os.OpenFile(filepath.Join(hostUIDLocks, strconv.Itoa(n)), os.O_CREATE|os.O_RDWR|syscall.O_NOFOLLOW, 0o600)
		if err != nil {
			return UnprivilegedUID, nil
		}
		if unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB) == nil {
			return hostUIDBase + uint32(n), f
		}
		f.Close()
	}
	return UnprivilegedUID, nil
}

// privateDir makes dir (0700) if needed and reports whether it is a real
// folder only root may write to.
func privateDir(dir string) bool {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return false
	}
	var st unix.Stat_t
	if err := unix.Lstat(dir, &st); err != nil {
		return false
	}
	return st.Mode&unix.S_IFMT == unix.S_IFDIR && st.Uid == 0 && st.Mode&0o022 == 0
}
