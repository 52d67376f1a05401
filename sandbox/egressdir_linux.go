package sandbox

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// egressDirPattern names the private folders of the proxy's socket, in
// the system's temp folder (a socket path must stay under 108 bytes, so
// the attempt folder, whose path may be long, cannot hold it).
const egressDirPattern = "kusaw-egress-*"

// egressLockName is the file in each such folder whose flock the runner
// holds while its sandbox lives: the kernel drops it when the runner dies,
// even by SIGKILL, so an unlocked folder is one a dead runner left.
const egressLockName = "lock"

// unlockedGrace is how old a folder without a lock file must be before it
// counts as stale: a runner creating one right now has not made it yet.
const unlockedGrace = 10 * time.Minute

// makeEgressDir removes the socket folders dead runners left, then makes
// a new one and locks it. The caller closes the lock (after removing the
// folder) when the sandbox ends.
func makeEgressDir() (dir string, lock *os.File, err error) {
	cleanStaleEgressDirs(os.TempDir())
	dir, err = os.MkdirTemp("", egressDirPattern)
	if err != nil {
		return "", nil, err
	}
	lock, err = os.OpenFile(filepath.Join(dir, egressLockName), os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
	if err == nil {
		err = unix.Flock(int(lock.Fd()), unix.LOCK_EX|unix.LOCK_NB)
	}
	if err != nil {
		if lock != nil {
			lock.Close()
		}
		os.RemoveAll(dir)
		return "", nil, err
	}
	return dir, lock, nil
}

// cleanStaleEgressDirs removes, under tmp, each socket folder no live
// runner holds. Errors are ignored: cleaning is a courtesy, and a folder
// it cannot remove does no harm.
func cleanStaleEgressDirs(tmp string) {
	dirs, _ := filepath.Glob(filepath.Join(tmp, egressDirPattern))
	for _, dir := range dirs {
		if stale(dir) {
			os.RemoveAll(dir)
		}
	}
}

// stale reports whether dir's lock is free, or, without a lock file,
// whether dir is older than unlockedGrace. A lock taken to find out is
// released when the file closes; the folder is gone by then.
func stale(dir string) bool {
	fi, err := os.Lstat(dir)
	if err != nil || !fi.IsDir() || fi.Sys().(*syscall.Stat_t).Uid != uint32(os.Getuid()) {
		return false // not a folder of ours
	}
	f, err := os.Open(filepath.Join(dir, egressLockName))
	if errors.Is(err, os.ErrNotExist) {
		return time.Since(fi.ModTime()) > unlockedGrace
	}
	if err != nil {
		return false
	}
	defer f.Close()
	return unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB) == nil
}
