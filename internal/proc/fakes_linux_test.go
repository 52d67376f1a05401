package proc_test

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"

	"kusaw.dev/step/internal/proc"
)

func init() {
	fakes["pdeath-parent"] = pdeathParent
	fakes["subreaper-host"] = subreaperHost
}

// pdeathParent plays a runner: it starts a hanging step with proc.Start,
// prints the step's pid, and hangs until it is killed.
func pdeathParent() error {
	cmd, err := fakeCommand("hang")
	if err != nil {
		return err
	}
	p, err := proc.Start(cmd)
	if err != nil {
		return err
	}
	fmt.Println(p.Pid())
	return hang()
}

// subreaperHost plays a runner that is a child subreaper. It runs the
// grandchild step, whose grandchild holds stdout open after the step exits,
// and checks that the orphan is reparented to it, that Stop ends it without
// SIGKILL (its zombie is reaped, so the group is seen empty), that the pipe
// reaches EOF, and that after Reap nothing of the group is left, not even a
// zombie.
func subreaperHost() error {
	if err := proc.BecomeSubreaper(); err != nil {
		return err
	}
	p, out, gpid, err := startOrphan()
	if err != nil {
		return err
	}
	defer p.Reap(15 * time.Second)
	if _, ppid, err := procStat(gpid); err != nil || ppid != os.Getpid() {
		return fmt.Errorf("orphan %d has parent %d (%v); want the subreaper %d", gpid, ppid, err, os.Getpid())
	}
	if p.Stop(15 * time.Second) {
		return errors.New("Stop had to kill: the orphan's zombie was not reaped")
	}
	if rest, err := io.ReadAll(out); err != nil {
		return fmt.Errorf("read after Stop = %q, %v; want EOF", rest, err)
	}
	return checkReaped(p, gpid)
}

// startOrphan starts the grandchild fake with its stdout on a pipe, reads
// the grandchild's pid, and waits for the step to exit, which orphans the
// grandchild. out reads the pipe, with a deadline.
func startOrphan() (p *proc.Process, out *bufio.Reader, gpid int, err error) {
	r, w, err := os.Pipe()
	if err != nil {
		return nil, nil, 0, err
	}
	cmd, err := fakeCommand("grandchild")
	if err != nil {
		return nil, nil, 0, err
	}
	cmd.Stdout = w
	p, err = proc.Start(cmd)
	w.Close()
	if err != nil {
		return nil, nil, 0, err
	}
	r.SetReadDeadline(time.Now().Add(time.Minute))
	out = bufio.NewReader(r)
	line, _ := out.ReadString('\n') // an error leaves line without a pid
	if gpid, err = strconv.Atoi(strings.TrimSpace(line)); err != nil {
		return p, nil, 0, fmt.Errorf("step printed %q: %w", line, err)
	}
	if !exitedWithin(p, time.Minute) {
		return p, nil, 0, errors.New("step did not exit")
	}
	return p, out, gpid, nil
}

// checkReaped reaps p's group and checks that nothing is left of it.
func checkReaped(p *proc.Process, gpid int) error {
	if err := p.Reap(15 * time.Second); err != nil {
		return err
	}
	if p.Alive() {
		return errors.New("Alive() after Reap = true")
	}
	if pid, err := syscall.Wait4(gpid, nil, syscall.WNOHANG, nil); !errors.Is(err, syscall.ECHILD) {
		return fmt.Errorf("wait4(%d) = %d, %v; want ECHILD (a zombie is left)", gpid, pid, err)
	}
	if err := syscall.Kill(gpid, 0); !errors.Is(err, syscall.ESRCH) {
		return fmt.Errorf("kill(%d, 0) = %v; want ESRCH", gpid, err)
	}
	return nil
}
