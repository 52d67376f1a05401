package result

import (
	"errors"
	"io/fs"
	"os"
	"strconv"

	"golang.org/x/sys/unix"
)

// openDirNoFollow opens path as a directory, refusing a symlink there.
func openDirNoFollow(path string) (*os.File, error) {
	fd, err := unix.Open(path, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: path, Err: err}
	}
	return os.NewFile(uintptr(fd), path), nil
}

// openBeneath opens rel beneath d with openat2 RESOLVE_BENEATH: a symlink
// or ".." that leads out fails (errEscapes), whatever d's path names now.
// It opens with O_PATH, so opening runs nothing of the file (a device, a
// FIFO), and reopens a regular file for reading through /proc/self/fd:
// the very file checked. f is nil when the file is not regular.
func (d *ArtifactsDir) openBeneath(rel string) (*os.File, fs.FileInfo, error) {
	how := unix.OpenHow{
		Flags:   unix.O_PATH | unix.O_CLOEXEC,
		Resolve: unix.RESOLVE_BENEATH | unix.RESOLVE_NO_MAGICLINKS,
	}
	fd, err := unix.Openat2(int(d.f.Fd()), rel, &how)
	switch {
	case errors.Is(err, unix.ENOSYS):
		return d.openByName(rel) // a kernel before 5.6
	case errors.Is(err, unix.EXDEV):
		return nil, nil, errEscapes
	case err != nil:
		return nil, nil, err
	}
	pathFile := os.NewFile(uintptr(fd), rel)
	defer pathFile.Close()
	fi, err := pathFile.Stat()
	if err != nil || !fi.Mode().IsRegular() {
		return nil, fi, err
	}
	f, err := os.OpenFile("/proc/self/fd/"+strconv.Itoa(fd), os.O_RDONLY|unix.O_NONBLOCK|unix.O_NOCTTY, 0)
	return f, fi, err
}

// realPath returns where the folder held open is now.
func (d *ArtifactsDir) realPath() string {
	if p, err := os.Readlink("/proc/self/fd/" + strconv.Itoa(int(d.f.Fd()))); err == nil {
		return p
	}
	return d.path
}
