//go:build !linux

package result

import (
	"io/fs"
	"os"
	"syscall"
)

// openDirNoFollow opens path as a directory, refusing a symlink there.
func openDirNoFollow(path string) (*os.File, error) {
	fi, err := os.Lstat(path)
	if err != nil {
		return nil, err
	}
	if !fi.IsDir() {
		return nil, &os.PathError{Op: "open", Path: path, Err: syscall.ENOTDIR}
	}
	return os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW, 0)
}

// openBeneath resolves rel by name under the folder's path: systems
// without openat2 RESOLVE_BENEATH.
func (d *ArtifactsDir) openBeneath(rel string) (*os.File, fs.FileInfo, error) {
	return d.openByName(rel)
}

// realPath returns where the folder held open is: its path, here.
func (d *ArtifactsDir) realPath() string { return d.path }
