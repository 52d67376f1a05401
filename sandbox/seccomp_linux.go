package sandbox

import (
	"encoding/binary"
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// refused are the system calls a step has no business making, the doors
// most kernel escapes go through; the filter answers each with EPERM,
// which a step can handle. Nested user namespaces are closed apart, by
// bwrap's --disable-userns.
var refused = []uintptr{
	unix.SYS_BPF, unix.SYS_KEYCTL, unix.SYS_ADD_KEY, unix.SYS_REQUEST_KEY,
	unix.SYS_USERFAULTFD, unix.SYS_PERF_EVENT_OPEN,
	unix.SYS_KEXEC_LOAD, unix.SYS_KEXEC_FILE_LOAD,
	unix.SYS_INIT_MODULE, unix.SYS_FINIT_MODULE, unix.SYS_DELETE_MODULE,
	unix.SYS_MOUNT, unix.SYS_UMOUNT2, unix.SYS_PIVOT_ROOT, unix.SYS_SETNS,
	unix.SYS_OPEN_TREE, unix.SYS_MOVE_MOUNT, unix.SYS_FSOPEN, unix.SYS_FSCONFIG,
	unix.SYS_FSMOUNT, unix.SYS_FSPICK, unix.SYS_MOUNT_SETATTR,
	unix.SYS_OPEN_BY_HANDLE_AT, unix.SYS_NAME_TO_HANDLE_AT,
	unix.SYS_SWAPON, unix.SYS_SWAPOFF, unix.SYS_REBOOT, unix.SYS_ACCT,
	unix.SYS_SETTIMEOFDAY, unix.SYS_CLOCK_SETTIME, unix.SYS_CLOCK_ADJTIME, unix.SYS_ADJTIMEX,
	unix.SYS_QUOTACTL, unix.SYS_PERSONALITY,
}

// BPF instruction parts (linux/bpf_common.h, linux/seccomp.h).
const (
	bpfLd, bpfW, bpfAbs    = 0x00, 0x00, 0x20
	bpfJmp, bpfJeq, bpfJge = 0x05, 0x10, 0x30
	bpfK, bpfRet           = 0x00, 0x06
	seccompRetAllow        = 0x7fff0000
	seccompRetErrno        = 0x00050000
	offsetNr, offsetArch   = 0, 4 // in struct seccomp_data
	x32Bit                 = 0x40000000
)

// seccompProgram returns the classic BPF program of the filter, for this
// machine's architecture: a system call of another ABI (32-bit, x32) is
// refused whole, each refused one gets EPERM, everything else passes.
func seccompProgram() []unix.SockFilter {
	stmt := func(code uint16, k uint32) unix.SockFilter { return unix.SockFilter{Code: code, K: k} }
	jump := func(code uint16, k uint32, jt, jf uint8) unix.SockFilter {
		return unix.SockFilter{Code: code, Jt: jt, Jf: jf, K: k}
	}
	deny := stmt(bpfRet|bpfK, seccompRetErrno|uint32(unix.EPERM))
	prog := []unix.SockFilter{
		stmt(bpfLd|bpfW|bpfAbs, offsetArch),
		jump(bpfJmp|bpfJeq|bpfK, auditArch, 1, 0),
		deny,
		stmt(bpfLd|bpfW|bpfAbs, offsetNr),
		jump(bpfJmp|bpfJge|bpfK, x32Bit, 0, 1),
		deny,
	}
	for _, nr := range refused {
		prog = append(prog, jump(bpfJmp|bpfJeq|bpfK, uint32(nr), 0, 1), deny)
	}
	return append(prog, stmt(bpfRet|bpfK, seccompRetAllow))
}

// seccompFile returns a file holding the filter as bwrap's --seccomp reads
// it: the struct sock_filter array, in the machine's byte order; nil on an
// architecture the filter does not know.
func seccompFile() (*os.File, error) {
	if auditArch == 0 {
		return nil, nil
	}
	fd, err := unix.MemfdCreate("kusaw-seccomp", 0)
	if err != nil {
		return nil, fmt.Errorf("seccomp filter: %w", err)
	}
	f := os.NewFile(uintptr(fd), "kusaw-seccomp")
	for _, ins := range seccompProgram() {
		if err := binary.Write(f, binary.NativeEndian, ins); err != nil {
			f.Close()
			return nil, fmt.Errorf("seccomp filter: %w", err)
		}
	}
	if _, err := f.Seek(0, 0); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}
