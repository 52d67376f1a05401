package sandbox

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"

	"golang.org/x/sys/unix"
)

// stageDir is where the supervisor of a root runner mounts what bwrap
// binds, in a mount namespace of its own (on a tmpfs that hides the
// host's /run there; bwrap hides it again inside the sandbox).
const stageDir = "/run"

// stager turns the binds of a root runner's sandbox into binds the
// unprivileged uid can make and use: each bound file or folder is cloned
// as a detached mount, idmapped so that its owner appears as that uid
// (the step may write its worktree, artifacts and tmp, read and run its
// program, even in a folder mode 0700 owned by root), and mounted on a
// stage every uid can search. The mounts live in the supervisor's own
// mount namespace, so they vanish with it.
type stager struct {
	host   uint32                 // the host uid (and gid) the sandbox runs as
	userns map[[2]uint32]*os.File // a user namespace per owner: OWNER -> host
	n      int
}

// stageBinds enters a private mount namespace (this thread's; bwrap is
// forked from it) and returns argv with every --bind-fd and --ro-bind-fd
// made a --bind or --ro-bind of a staged mount, owned by the host uid
// host. The caller's thread must be locked, and stay so.
func stageBinds(argv []string, host uint32) ([]string, error) {
	st := &stager{host: host, userns: map[[2]uint32]*os.File{}}
	defer st.close()
	// Clone first: a mount of another namespace cannot be cloned.
	var trees []*tree
	for i, opt := range argv {
		if (opt == "--bind-fd" || opt == "--ro-bind-fd") && i+2 < len(argv) {
			t, err := cloneTree(argv[i+1])
			if err != nil {
				return nil, fmt.Errorf("bind %s: %w", argv[i+2], err)
			}
			defer unix.Close(t.fd)
			trees = append(trees, t)
		}
	}
	if err := unix.Unshare(unix.CLONE_NEWNS | unix.CLONE_FS); err != nil {
		return nil, fmt.Errorf("private mount namespace: %w", err)
	}
	if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_PRIVATE, ""); err != nil {
		return nil, fmt.Errorf("private mounts: %w", err)
	}
	if err := unix.Mount("tmpfs", stageDir, "tmpfs", unix.MS_NOSUID|unix.MS_NODEV, "mode=0755"); err != nil {
		return nil, fmt.Errorf("stage: %w", err)
	}
	out := make([]string, 0, len(argv))
	for i := 0; i < len(argv); i++ {
		opt := argv[i]
		if (opt != "--bind-fd" && opt != "--ro-bind-fd") || i+2 >= len(argv) {
			out = append(out, opt)
			continue
		}
		src, err := st.stage(trees[0])
		if err != nil {
			return nil, fmt.Errorf("bind %s: %w", argv[i+2], err)
		}
		trees = trees[1:]
		bind := "--bind"
		if opt == "--ro-bind-fd" {
			bind = "--ro-bind"
		}
		out = append(out, bind, src, argv[i+2])
		i += 2
	}
	return out, nil
}

// tree is a detached clone of a bound file or folder.
type tree struct {
	fd       int
	uid, gid uint32
	dir      bool
}

// cloneTree clones the mount of the file or folder descriptor fd (a
// decimal string) opens.
func cloneTree(fd string) (*tree, error) {
	n, err := strconv.Atoi(fd)
	if err != nil {
		return nil, err
	}
	var fi unix.Stat_t
	if err := unix.Fstat(n, &fi); err != nil {
		return nil, err
	}
	t, err := unix.OpenTree(n, "", unix.OPEN_TREE_CLONE|unix.OPEN_TREE_CLOEXEC|unix.AT_EMPTY_PATH)
	if err != nil {
		return nil, fmt.Errorf("clone: %w", err)
	}
	return &tree{fd: t, uid: fi.Uid, gid: fi.Gid, dir: fi.Mode&unix.S_IFMT == unix.S_IFDIR}, nil
}

// stage mounts t on the stage, idmapped where the file system allows it,
// and returns its path.
func (st *stager) stage(t *tree) (string, error) {
	if ns, err := st.usernsOf(t.uid, t.gid); err == nil {
		attr := unix.MountAttr{Attr_set: unix.MOUNT_ATTR_IDMAP, Userns_fd: uint64(ns.Fd())}
		// A file system without idmapped mounts (EINVAL) keeps its owners:
		// the step may then read what others may, and write nothing of root's.
		_ = unix.MountSetattr(t.fd, "", unix.AT_EMPTY_PATH, &attr)
	}
	target := filepath.Join(stageDir, strconv.Itoa(st.n))
	st.n++
	var err error
	if t.dir {
		err = os.Mkdir(target, 0o755)
	} else {
		err = os.WriteFile(target, nil, 0o644)
	}
	if err != nil {
		return "", err
	}
	if err := unix.MoveMount(t.fd, "", unix.AT_FDCWD, target, unix.MOVE_MOUNT_F_EMPTY_PATH); err != nil {
		return "", fmt.Errorf("mount: %w", err)
	}
	return target, nil
}

// usernsOf returns a user namespace that maps uid and gid to the host
// uid and gid, held by a child that waits for stdin to close.
func (st *stager) usernsOf(uid, gid uint32) (*os.File, error) {
	key := [2]uint32{uid, gid}
	if f, ok := st.userns[key]; ok {
		return f, nil
	}
	cat, err := exec.LookPath("cat")
	if err != nil {
		return nil, err
	}
	holder := exec.Command(cat)
	holder.SysProcAttr = &syscall.SysProcAttr{
		Cloneflags:  syscall.CLONE_NEWUSER,
		UidMappings: []syscall.SysProcIDMap{{ContainerID: int(uid), HostID: int(st.host), Size: 1}},
		GidMappings: []syscall.SysProcIDMap{{ContainerID: int(gid), HostID: int(st.host), Size: 1}},
	}
	in, err := holder.StdinPipe()
	if err != nil {
		return nil, err
	}
	if err := holder.Start(); err != nil {
		return nil, err
	}
	f, err := os.Open(fmt.Sprintf("/proc/%d/ns/user", holder.Process.Pid))
	in.Close()
	err = errors.Join(err, holder.Wait())
	if err != nil {
		if f != nil {
			f.Close()
		}
		return nil, err
	}
	st.userns[key] = f
	return f, nil
}

func (st *stager) close() {
	for _, f := range st.userns {
		f.Close()
	}
}
