package conform

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/go-json-experiment/json"

	"kusaw.dev/step/handshake"
	"kusaw.dev/step/internal/proc"
	"kusaw.dev/step/protocol"
	"kusaw.dev/step/schemas"
)

// handshakeRun is everything the handshake checks look at: two raw probes
// (stdin empty, then stdin held open) and one handshake.Run.
type handshakeRun struct {
	plain, openStdin *probeResult
	info             *handshake.Info
	err              error
	changed          []string // files the handshakes changed in the worktree or artifacts dir
}

// handshakeChecks runs HS-001…HS-009 and returns what the step declared,
// or nil when its handshake failed.
func (b *battery) handshakeChecks(ctx context.Context) *handshake.Info {
	d, err := b.newDirs("handshake")
	if err != nil {
		b.reportAll("HS", "", Skip, "the battery could not make its scratch folders: %v", err)
		b.prerequisiteFailed(fmt.Errorf("the battery could not make its scratch folders: %w", err))
		return nil
	}
	hr, err := b.runHandshakes(ctx, d)
	if err != nil {
		b.reportAll("HS", "", Skip, "the handshake's sandbox could not be set up: %v", err)
		b.prerequisiteFailed(fmt.Errorf("the handshake's sandbox could not be set up: %w", err))
		return nil
	}
	b.checkExit(hr)
	line := b.checkLines(hr)
	h := b.checkLine(line)
	b.checkOutputsSchema(hr)
	b.checkStdin(hr)
	b.checkSameAnswer(hr)
	b.checkHandshakeWrites(hr)
	b.checkIdentity(h)
	if hr.err != nil {
		b.prerequisiteFailed(hr.err)
		return nil
	}
	return hr.info
}

// runHandshakes runs the probes and handshake.Run at once, in the same
// worktree and the same sandbox, and notes what they changed there. An
// error is the sandbox's, and nothing ran.
func (b *battery) runHandshakes(ctx context.Context, d *dirs) (*handshakeRun, error) {
	opts, plan, err := b.handshakeOptions(d)
	if err != nil {
		return nil, err
	}
	watched := []string{d.worktree, d.artifacts}
	before := snapshot(watched, nil)
	hr := &handshakeRun{}
	var wg sync.WaitGroup
	wg.Go(func() { hr.plain = probe(ctx, b.opts.Command, opts, false) })
	wg.Go(func() { hr.openStdin = probe(ctx, b.opts.Command, opts, true) })
	wg.Go(func() { hr.info, hr.err = handshake.Run(ctx, b.opts.Command, opts) })
	wg.Wait()
	hr.changed = diff(before, snapshot(watched, nil))
	b.startup = hr.plain.took
	killMarked(b.markerEntry("handshake"))
	maskHandshakes(hr, plan)
	return hr, nil
}

// checkExit is HS-001.
func (b *battery) checkExit(hr *handshakeRun) {
	p := hr.plain
	switch {
	case p.startErr != nil && p.inSandbox:
		b.report("HS-001", "", Fail, "the step could not be started in the sandbox: %v; run with --sandbox off to see whether the sandbox is the cause", p.startErr)
	case p.startErr != nil:
		b.report("HS-001", "", Fail, "the step could not be started: %v; give the path of an executable file", p.startErr)
	case p.timedOut:
		b.report("HS-001", "", Fail, "the handshake did not exit within %v; print the handshake line and exit 0 at once when KUSAW_HANDSHAKE=1", b.opts.HandshakeTimeout)
	case p.code != 0:
		b.report("HS-001", "", Fail, "the handshake exited with status %d; exit 0 after printing the handshake line", p.code)
	default:
		b.report("HS-001", "", Pass, "exited 0 in %v", p.took.Round(millisecond))
	}
}

// checkLines is HS-002; it returns the first line, or nil.
func (b *battery) checkLines(hr *handshakeRun) []byte {
	p := hr.plain
	if p.startErr != nil {
		b.report("HS-002", "", Skip, "the step could not be started (HS-001)")
		return nil
	}
	lines := splitLines(p.stdout)
	switch len(lines) {
	case 0:
		b.report("HS-002", "", Fail, "the handshake printed nothing on stdout; print one JSON line when KUSAW_HANDSHAKE=1")
		return nil
	case 1:
		b.report("HS-002", "", Pass, "one line of %d bytes", len(lines[0]))
	default:
		b.report("HS-002", "", Fail, "the handshake printed %d lines on stdout; print exactly one, and log to stderr", len(lines))
	}
	return lines[0]
}

// checkLine is HS-003 and HS-004; it returns the decoded line, or nil.
func (b *battery) checkLine(line []byte) *protocol.Handshake {
	if line == nil {
		b.report("HS-003", "", Skip, "no handshake line (HS-002)")
		b.report("HS-004", "", Skip, "no handshake line (HS-002)")
		return nil
	}
	doc, err := protocol.Parse(line)
	if err == nil {
		err = schemas.Validate("handshake", doc)
	}
	if err != nil {
		b.report("HS-003", "", Fail, "%v; see kusaw-step schema handshake", err)
	} else {
		b.report("HS-003", "", Pass, "valid")
	}
	h := new(protocol.Handshake)
	if err := json.Unmarshal(line, h); err != nil {
		b.report("HS-004", "", Skip, "the line does not decode as a handshake: %v", err)
		return nil
	}
	if !h.Speaks(protocol.Version) {
		b.report("HS-004", "", Fail, "protocol_versions is %v; list %d", h.ProtocolVersions, protocol.Version)
	} else {
		b.report("HS-004", "", Pass, "protocol_versions %v", h.ProtocolVersions)
	}
	return h
}

// checkOutputsSchema is HS-005, from handshake.Run's verdict.
func (b *battery) checkOutputsSchema(hr *handshakeRun) {
	var he *handshake.Error
	switch {
	case errors.Is(hr.err, handshake.ErrOutputsSchemaInvalid) && errors.As(hr.err, &he):
		b.report("HS-005", "", Fail, "%s; %s", he.Cause, he.Hint)
	case hr.err != nil:
		b.report("HS-005", "", Skip, "the handshake failed before outputs_schema was read: %s", causeOf(hr.err))
	case hr.info.OutputsSchema == nil:
		b.report("HS-005", "", Skip, "the step declares no outputs_schema")
	default:
		b.report("HS-005", "", Pass, "compiles")
	}
}

// checkStdin is HS-006: with stdin held open, the handshake ends the same.
func (b *battery) checkStdin(hr *handshakeRun) {
	p, q := hr.plain, hr.openStdin
	switch {
	case p.startErr != nil || p.timedOut:
		b.report("HS-006", "", Skip, "the handshake does not end even with stdin empty (HS-001)")
	case q.timedOut:
		b.report("HS-006", "", Fail, "with stdin left open the handshake did not exit within %v; do not read stdin when KUSAW_HANDSHAKE=1", b.opts.HandshakeTimeout)
	case q.code != p.code:
		b.report("HS-006", "", Fail, "with stdin left open the handshake exited %d, with stdin empty %d; do not read stdin when KUSAW_HANDSHAKE=1", q.code, p.code)
	default:
		b.report("HS-006", "", Pass, "exits without reading stdin")
	}
}

// checkSameAnswer is HS-007: the two probes printed the same line.
func (b *battery) checkSameAnswer(hr *handshakeRun) {
	p, q := hr.plain, hr.openStdin
	if p.startErr != nil || p.timedOut || q.timedOut {
		b.report("HS-007", "", Skip, "the handshake did not end twice (HS-001, HS-006)")
		return
	}
	one, two := bytes.TrimSpace(p.stdout), bytes.TrimSpace(q.stdout)
	if !bytes.Equal(one, two) {
		b.report("HS-007", "", Fail, "two handshakes printed %s and %s; print the same line every time", quoteCut(one), quoteCut(two))
		return
	}
	b.report("HS-007", "", Pass, "the same line twice")
}

// checkHandshakeWrites is HS-008.
func (b *battery) checkHandshakeWrites(hr *handshakeRun) {
	if len(hr.changed) > 0 {
		b.report("HS-008", "", Fail, "the handshake changed %s; a handshake only prints its line", listCut(hr.changed))
		return
	}
	b.report("HS-008", "", Pass, "wrote nothing")
}

// checkIdentity is HS-009.
func (b *battery) checkIdentity(h *protocol.Handshake) {
	if h == nil {
		b.report("HS-009", "", Skip, "no handshake to read (HS-003)")
		return
	}
	var empty []string
	if strings.TrimSpace(h.Name) == "" {
		empty = append(empty, "name")
	}
	if strings.TrimSpace(h.Version) == "" {
		empty = append(empty, "version")
	}
	if len(empty) > 0 {
		b.report("HS-009", "", Fail, "%s must not be empty; say who the step is, e.g. \"name\":\"lint\",\"version\":\"1.2.0\"", strings.Join(empty, " and "))
		return
	}
	b.report("HS-009", "", Pass, "%s %s", h.Name, h.Version)
}

// causeOf returns the cause of a handshake error, or its text.
func causeOf(err error) string {
	var he *handshake.Error
	if errors.As(err, &he) {
		return he.Cause
	}
	return err.Error()
}

// splitLines splits stdout into lines, a last line without "\n" included.
func splitLines(out []byte) [][]byte {
	var lines [][]byte
	for len(out) > 0 {
		line, rest, _ := bytes.Cut(out, []byte("\n"))
		lines = append(lines, bytes.TrimSuffix(line, []byte("\r")))
		out = rest
	}
	return lines
}

// probeMax is how much of a probe's stdout is kept.
const probeMax = 1 << 20

// probeResult is how one raw handshake process ended.
type probeResult struct {
	startErr  error
	inSandbox bool // startErr is the sandbox's, not the step's
	stdout    []byte
	code      int
	timedOut  bool
	took      time.Duration
}

// probe runs the step once as a handshake, as handshake.Run does with
// opts (its environment, its sandbox, its own process group, killed on
// timeout), and returns what it printed and how it ended. With openStdin
// the step's stdin is a pipe left open until it exits, instead of empty;
// the sandbox hands it on to the step. It is the battery's raw view of
// the process; the verdict on the handshake itself comes from
// handshake.Run.
func probe(ctx context.Context, argv []string, opts handshake.Options, openStdin bool) *probeResult {
	ctx, cancel := context.WithTimeout(ctx, opts.Timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	if cmd.Err != nil {
		return &probeResult{startErr: cmd.Err}
	}
	cmd.Dir, cmd.Env = opts.Dir, handshake.Env(opts.Env)
	if opts.Sandbox != "" {
		cmd.Env = append(cmd.Env, "KUSAW_SANDBOX="+opts.Sandbox) // the last one wins
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = time.Second
	var out bytes.Buffer
	cmd.Stdout = &limitWriter{w: &out, n: probeMax}
	if openStdin {
		r, w, err := os.Pipe()
		if err != nil {
			return &probeResult{startErr: err}
		}
		defer w.Close()
		defer r.Close()
		cmd.Stdin = r
	}
	if opts.Wrap != nil {
		sb, err := opts.Wrap(cmd)
		if err != nil {
			return &probeResult{startErr: err, inSandbox: true}
		}
		defer sb.Close()
	}
	proc.CloseInheritedOnExec()
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return &probeResult{startErr: err}
	}
	err := cmd.Wait()
	_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) // what the step left behind
	res := &probeResult{stdout: out.Bytes(), code: cmd.ProcessState.ExitCode(), took: time.Since(start)}
	res.timedOut = ctx.Err() != nil && !errors.Is(err, exec.ErrWaitDelay)
	return res
}

// limitWriter keeps the first n bytes written and discards the rest.
type limitWriter struct {
	w io.Writer
	n int
}

func (l *limitWriter) Write(p []byte) (int, error) {
	keep := min(len(p), l.n)
	if keep > 0 {
		l.w.Write(p[:keep])
		l.n -= keep
	}
	return len(p), nil
}
