package handshake

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/go-json-experiment/json"

	"kusaw.dev/step/events"
	"kusaw.dev/step/internal/proc"
	"kusaw.dev/step/protocol"
	"kusaw.dev/step/schemas"
)

// Defaults for [Options].
const (
	DefaultTimeout = 10 * time.Second
	DefaultMaxLine = protocol.DefaultMaxLineBytes
)

// waitDelay is how long Run goes on reading stdout and stderr after the
// step has exited or been killed: a process the step left behind may hold
// them open. After it, the pipes are closed (exec.Cmd.WaitDelay) and the
// group is killed. It is also how long the runner may be starved of CPU
// right after the step exits before what the step printed is lost, hence
// not less.
const waitDelay = 2 * time.Second

// stderrTail is how many bytes of the step's stderr Run keeps, and
// stderrLines how many of their last lines an [Error] shows.
const (
	stderrTail  = 4 << 10
	stderrLines = 40
)

// Options configure [Run]. The zero value is ready to use.
type Options struct {
	// Timeout bounds the handshake, from start to exit; 0 means
	// DefaultTimeout. When it runs out the step's process group is killed
	// and Run returns ErrFailed.
	Timeout time.Duration

	// Dir is the step's working directory; "" means the runner's. The
	// step itself (argv[0]) is found from the runner's directory and PATH,
	// not from Dir.
	Dir string

	// Env is the base environment; nil means os.Environ(). Run removes
	// every KUSAW_* variable from it and adds the handshake's own (see
	// [Env]).
	Env []string

	// MaxLine is the longest handshake line in bytes, without its "\n"
	// and one trailing "\r"; 0 means DefaultMaxLine.
	MaxLine int

	// Sandbox is the value of KUSAW_SANDBOX during the handshake: the
	// backend Wrap puts the step in, "" for none.
	Sandbox string

	// Wrap, when not nil, is given the handshake's command, built and not
	// yet started, to run it inside the attempt's sandbox (sandbox.Wrap);
	// Run closes what it returns once the step has exited. An error is
	// returned by Run as it is, and nothing starts.
	Wrap func(cmd *exec.Cmd) (io.Closer, error)
}

// withDefaults fills in the zero fields.
func (o Options) withDefaults() Options {
	if o.Timeout <= 0 {
		o.Timeout = DefaultTimeout
	}
	if o.MaxLine <= 0 {
		o.MaxLine = DefaultMaxLine
	}
	return o
}

// Info is what a step declared in a valid handshake.
type Info struct {
	Handshake     *protocol.Handshake // the line, decoded
	Raw           []byte              // the line as printed, without its "\n" and one trailing "\r"
	OutputsSchema *schemas.Schema     // the compiled outputs_schema; nil when the step gives none
	Warnings      []protocol.Warning  // what Run let pass; nil when nothing
}

// Run runs the step argv once with KUSAW_HANDSHAKE=1, reads the one line it
// prints on stdout and returns what it declared. It returns only when the
// step has exited, its process group has been killed and every pipe has
// been read or closed.
//
// A failed handshake is an [*Error] that matches ErrStart, ErrFailed,
// ErrProtocolUnsupported or ErrOutputsSchemaInvalid. When ctx is done
// before the step has answered, the step's process group is killed and the
// *Error matches ctx.Err() with reason cancelled.
func Run(ctx context.Context, argv []string, opts Options) (*Info, error) {
	opts = opts.withDefaults()
	path, err := resolve(argv)
	if err != nil {
		return nil, err
	}
	x, err := execute(ctx, path, argv[1:], opts)
	if err != nil {
		return nil, err
	}
	return x.declaration()
}

// exchange is one handshake process, run to its end: what it printed and
// how it ended.
type exchange struct {
	path     string
	opts     Options
	out      stdout
	stderr   string             // the last lines of its stderr
	warnings []protocol.Warning // noticed while it ran
}

// execute starts the step, reads its output and waits for it, then kills
// what is left of its process group.
func execute(ctx context.Context, path string, args []string, opts Options) (*exchange, error) {
	timer, cancel := context.WithTimeout(ctx, opts.Timeout)
	defer cancel()
	cmd := command(timer, path, args, opts)
	if opts.Wrap != nil {
		sb, err := opts.Wrap(cmd)
		if err != nil {
			return nil, err
		}
		defer sb.Close()
	}
	tail := events.NewTail(stderrTail)
	cmd.Stderr = tail
	pr, pw := io.Pipe()
	cmd.Stdout = pw
	x := &exchange{path: path, opts: opts}
	proc.CloseInheritedOnExec()
	if err := cmd.Start(); err != nil {
		pr.Close()
		return nil, x.notStarted(ctx, timer, err)
	}
	// The reader ends when pw is closed, once Wait has joined the
	// goroutine os/exec copies stdout with (or abandoned it after
	// waitDelay); it closes pr, so that copy can never block on it.
	done := make(chan stdout, 1)
	go func() { done <- readStdout(pr, opts.MaxLine) }()
	waitErr := cmd.Wait()
	_ = killGroup(cmd.Process.Pid) // whatever the step left behind; usually nothing
	pw.Close()
	x.out, x.stderr = <-done, tail.Lines(stderrLines)
	return x, x.ended(ctx, timer, waitErr)
}

// command builds the handshake command: stdin empty (/dev/null), the
// handshake environment, its own process group, killed on timeout or
// cancel.
func command(ctx context.Context, path string, args []string, opts Options) *exec.Cmd {
	cmd := exec.CommandContext(ctx, path, args...)
	cmd.Dir = opts.Dir
	cmd.Env = Env(opts.Env)
	if opts.Sandbox != "" {
		cmd.Env = append(cmd.Env, sandboxVar+"="+opts.Sandbox)
	}
	inOwnGroup(cmd)
	cmd.WaitDelay = waitDelay
	return cmd
}

// notStarted explains a failed start: a cancellation or timeout that came
// first, or a step that cannot be run.
func (x *exchange) notStarted(parent, timer context.Context, err error) error {
	if ierr := x.interrupted(parent, timer); ierr != nil {
		return ierr
	}
	if derr := checkDir(x.opts.Dir); derr != nil {
		return startError(x.path, derr)
	}
	return startError(x.path, err)
}

// interrupted returns the error for a handshake the caller cancelled or
// the timeout cut short, and nil otherwise.
func (x *exchange) interrupted(parent, timer context.Context) error {
	switch {
	case parent.Err() != nil:
		return x.fail(parent.Err(), "the caller cancelled the handshake", "")
	case timer.Err() != nil:
		return x.fail(ErrFailed, x.timeoutCause(), hintTimeout)
	}
	return nil
}

func (x *exchange) timeoutCause() string {
	if x.out.lines == 0 {
		return fmt.Sprintf("timeout: the step printed no line within %v and was killed", x.opts.Timeout)
	}
	return fmt.Sprintf("timeout: the step did not exit within %v and was killed", x.opts.Timeout)
}

// ended checks how the step ended, from the error of exec.Cmd.Wait.
func (x *exchange) ended(parent, timer context.Context, waitErr error) error {
	switch {
	case waitErr == nil:
		return nil
	case errors.Is(waitErr, exec.ErrWaitDelay):
		// Only a step that exited 0 on its own gets this error.
		x.warnings = append(x.warnings, heldOpen(waitDelay))
		return nil
	}
	if err := x.interrupted(parent, timer); err != nil {
		return err
	}
	var ee *exec.ExitError
	if errors.As(waitErr, &ee) {
		return x.fail(ErrFailed, exitCause(ee.ProcessState), hintLine)
	}
	return x.fail(ErrFailed, "waiting for the step failed: "+waitErr.Error(), "")
}

// exitCause says how a process that did not exit 0 ended.
func exitCause(ps *os.ProcessState) string {
	if code := ps.ExitCode(); code >= 0 {
		return fmt.Sprintf("the step exited with status %d; a handshake exits 0", code)
	}
	return fmt.Sprintf("the step did not exit normally (%v)", ps)
}

// declaration checks the line and what it declares, in the order the
// package documentation gives.
func (x *exchange) declaration() (*Info, error) {
	doc, err := x.parse()
	if err != nil {
		return nil, err
	}
	h := new(protocol.Handshake)
	if err := json.Unmarshal(x.out.first, h); err != nil {
		return nil, x.fail(ErrFailed, "the handshake line does not decode: "+err.Error(), hintSchema)
	}
	if !h.Speaks(protocol.Version) {
		return nil, x.unsupported(h.ProtocolVersions)
	}
	schema, err := outputsSchema(doc, x.path)
	if err != nil {
		return nil, x.fail(ErrOutputsSchemaInvalid, err.Error(), hintOutputs)
	}
	ws := append(x.warnings, declarationWarnings(h)...)
	return &Info{Handshake: h, Raw: x.out.first, OutputsSchema: schema, Warnings: ws}, nil
}

// parse checks that stdout was one line of strict JSON, valid against the
// handshake schema, and returns it parsed.
func (x *exchange) parse() (map[string]any, error) {
	out := &x.out
	switch {
	case out.err != nil:
		return nil, x.fail(ErrFailed, "reading the step's stdout failed: "+out.err.Error(), "")
	case out.lines == 0:
		return nil, x.fail(ErrFailed, "the step printed nothing on stdout", hintLine)
	case out.tooLong != nil:
		return nil, x.fail(ErrFailed, fmt.Sprintf("the handshake line is %d bytes, over the limit of %d bytes", out.tooLong.Size, out.tooLong.Max), hintLine)
	case out.lines > 1:
		return nil, x.fail(ErrFailed, fmt.Sprintf("the step printed %d lines on stdout; a handshake is exactly one line", out.lines), hintLine)
	}
	doc, err := protocol.Parse(out.first)
	if err != nil {
		return nil, x.fail(ErrFailed, "the handshake line is not strict JSON: "+err.Error(), hintLine)
	}
	if err := schemas.Validate("handshake", doc); err != nil {
		return nil, x.fail(ErrFailed, "the handshake line breaks the handshake schema: "+problems(err), hintSchema)
	}
	return doc.(map[string]any), nil // the schema asks for an object
}

// problems lists the schema problems of err, one per JSON pointer.
func problems(err error) string {
	var se *schemas.Error
	if !errors.As(err, &se) {
		return err.Error()
	}
	list := make([]string, len(se.Problems))
	for i, p := range se.Problems {
		list[i] = p.String()
	}
	return strings.Join(list, "; ")
}

func (x *exchange) unsupported(versions []int) error {
	cause := fmt.Sprintf("the step speaks protocol versions %v; this runner speaks %d", versions, protocol.Version)
	if len(versions) == 0 {
		cause = fmt.Sprintf("the step lists no protocol version; this runner speaks %d", protocol.Version)
	}
	hint := fmt.Sprintf("rebuild the step against protocol %d, so that its protocol_versions list %d", protocol.Version, protocol.Version)
	return x.fail(ErrProtocolUnsupported, cause, hint)
}

// fail returns the [*Error] for condition err, with the evidence: the
// offending stdout and the stderr tail.
func (x *exchange) fail(err error, cause, hint string) *Error {
	return &Error{
		Reason: reasonFor(err), Cause: cause, Hint: hint, Err: err,
		Path: x.path, Line: x.out.offending(), Stderr: x.stderr,
	}
}
