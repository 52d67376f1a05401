//go:build !unix

package attemptdir

import (
	"os"
	"path/filepath"
)

// lockDir opens the lock file; without flock the folder is not locked
// against other attempts on this system.
func lockDir(dir string) (*os.File, error) {
	return os.OpenFile(filepath.Join(dir, lockName), os.O_RDWR|os.O_CREATE, 0o644)
}

// locked cannot tell without flock and says no.
func locked(string) bool { return false }
