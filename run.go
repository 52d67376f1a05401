package step

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"time"

	"github.com/go-json-experiment/json"

	"kusaw.dev/step/attemptdir"
	"kusaw.dev/step/handshake"
	"kusaw.dev/step/internal/proc"
	"kusaw.dev/step/protocol"
	"kusaw.dev/step/request"
	"kusaw.dev/step/result"
	"kusaw.dev/step/sandbox"
	"kusaw.dev/step/schemas"
)

// ErrAttempt is wrapped by every error [Run] returns: the runner itself
// failed (the attempt folder could not be written, the request is not a
// request), as opposed to the step, whose failures are verdicts in the
// [Record].
var ErrAttempt = errors.New("attempt")

// The defaults of [Attempt]'s durations.
const (
	DefaultHandshakeTimeout = 10 * time.Second
	DefaultGrace            = 5 * time.Second
)

// Run runs one attempt and returns its record. A step that misbehaves in
// any way still gives a record with a verdict, and a nil error; the error
// is for the runner's own failures, and then the record is as complete as
// it could be made. Run returns only when the step's process group is gone
// and every log is closed.
func Run(ctx context.Context, a Attempt) (*Record, error) {
	// 1. Read the request and lay out the attempt folder.
	at, err := prepare(a)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrAttempt, err)
	}
	rec := at.rec

	// The schemas the step's handshake and result are checked against
	// compile while the step starts and runs, not after.
	var warm sync.WaitGroup
	defer warm.Wait()
	warm.Go(func() { _ = schemas.Precompile("handshake", "result") }) // errors come back from Validate

	// 2. Ask the step who it is, in the sandbox the attempt will have.
	hsOpts, err := at.handshakeOptions()
	if err != nil {
		at.sandboxFailed(err)
		return rec, at.finish()
	}
	info, err := handshake.Run(ctx, a.Command, hsOpts)
	if err != nil {
		at.handshakeFailed(ctx, err)
		return rec, at.finish()
	}
	at.info = info
	rec.Step.Name, rec.Step.Version = info.Handshake.Name, info.Handshake.Version
	rec.Handshake = info.Raw
	rec.Warnings = append(rec.Warnings, info.Warnings...)
	if a.Observer.Handshake != nil {
		a.Observer.Handshake(info)
	}

	// 3. Decide its sandbox and environment; a step that may not start
	// never does.
	if err := at.prepareSandbox(); err != nil {
		at.sandboxFailed(err)
		return rec, at.finish()
	}

	// 4. Run the step on the request, reading everything it says.
	out := at.run(ctx)
	at.closeSandbox()

	// 5. Judge what it said, and write it all down.
	at.judge(out)
	at.recordSandbox(out)
	return rec, at.finish()
}

// attempt is the state of one Run.
type attempt struct {
	a                Attempt
	req              *protocol.Request
	rec              *Record
	info             *handshake.Info
	dir              string // the step's working directory
	artifactsDir     string
	handshakeTimeout time.Duration
	grace            time.Duration
	limits           limits
	started          time.Time
	plan             *sandbox.Plan        // nil: no sandbox options
	sb               *sandbox.Sandbox     // the running sandbox; nil when none
	maskers          []*sandbox.Masker    // the logs' maskers, flushed at the end
	notesPath        string               // the live notes file; "" when the step takes none
	files            stepFiles            // the files the step's variables name
	artDir           *result.ArtifactsDir // the artifacts folder, held open from before the step runs
	tracking         *proc.Cgroup         // the unsandboxed step's cgroup, which finds what it leaves; nil when none
	out              *attemptdir.Writer   // the attempt folder, locked until finish
	carried          []protocol.Note      // pending notes added to the request's context.notes
}

// limits are the request's caps, with the spec's defaults filled in.
type limits struct {
	maxLine, logCap, outputsMax int64
	timeLeft, completionGrace   time.Duration
}

func prepare(a Attempt) (*attempt, error) {
	if len(a.Command) == 0 {
		return nil, errors.New("no step command")
	}
	req, err := request.Decode(a.Request)
	if err != nil {
		return nil, err
	}
	if a.Command, err = absCommand(a.Command); err != nil {
		return nil, err
	}
	if a.OutDir, err = filepath.Abs(a.OutDir); err != nil {
		return nil, err
	}
	at := &attempt{a: a, req: req, started: time.Now(), limits: limitsOf(req)}
	at.handshakeTimeout = cmp(a.HandshakeTimeout, DefaultHandshakeTimeout)
	at.grace = cmp(a.Grace, DefaultGrace)
	at.dir = a.Dir
	if at.dir == "" && req.Worktree != nil {
		at.dir = *req.Worktree
	}
	at.rec = &Record{
		Status: protocol.StatusFail, Warnings: []protocol.Warning{}, Events: map[string]int{},
		StartedAt: at.started.UTC(), Step: StepIdentity{Command: a.Command},
	}
	if after, _ := filepath.Abs(a.After); a.After != "" && after == a.OutDir {
		return nil, fmt.Errorf("--after %s names the attempt's own folder: %w", a.After, attemptdir.ErrNotEmpty)
	}
	if at.out, err = attemptdir.Create(a.OutDir, attemptdir.Options{Force: a.Force}); err != nil {
		return nil, err
	}
	if err := at.layout(); err != nil {
		at.out.Close()
		return nil, err
	}
	return at, nil
}

// layout settles the request in the attempt folder (see folder.go), creates
// the artifacts folder and writes the request down.
func (at *attempt) layout() error {
	if err := at.settleRequest(); err != nil {
		return err
	}
	at.artifactsDir = at.req.ArtifactsDir
	if err := os.MkdirAll(at.artifactsDir, 0o755); err != nil {
		return fmt.Errorf("artifacts folder: %w", err)
	}
	at.rec.RequestPath = at.path(attemptdir.Request)
	if err := at.out.WriteFile(attemptdir.Request, at.a.Request, 0o600); err != nil {
		return err
	}
	if err := at.writeStepFiles(); err != nil {
		return err
	}
	return at.openArtifactsDir()
}

func limitsOf(req *protocol.Request) limits {
	l := req.Limits
	grace := int64(protocol.DefaultCompletionGraceSeconds)
	if req.CompletionGraceSeconds != nil {
		grace = int64(*req.CompletionGraceSeconds)
	}
	return limits{
		maxLine:         orDefault(l.MaxLineBytes, protocol.DefaultMaxLineBytes),
		logCap:          orDefault(l.LogCapBytes, protocol.DefaultLogCapBytes),
		outputsMax:      orDefault(l.OutputsMaxBytes, protocol.DefaultOutputsMaxBytes),
		timeLeft:        time.Duration(l.TimeLeftMS) * time.Millisecond,
		completionGrace: time.Duration(grace) * time.Second,
	}
}

func orDefault(v *int64, def int64) int64 {
	if v == nil {
		return def
	}
	return *v
}

func cmp(d, def time.Duration) time.Duration {
	if d <= 0 {
		return def
	}
	return d
}

// handshakeFailed records a failed handshake as the verdict.
func (at *attempt) handshakeFailed(ctx context.Context, err error) {
	rec := at.rec
	rec.ReasonCode = protocol.ReasonHandshakeFailed
	var he *handshake.Error
	if reason, ok := sandbox.Reason(err); ok {
		rec.ReasonCode, rec.Message = reason, err.Error()
	} else if errors.As(err, &he) {
		rec.ReasonCode = he.Reason
		rec.Diagnosis = he.Error()
		rec.Message = he.Cause
	} else {
		rec.Message = err.Error()
	}
	if ctx.Err() != nil {
		at.cancelled(ctx)
	}
}

// cancelled sets the verdict of an attempt its caller gave up on.
func (at *attempt) cancelled(ctx context.Context) {
	at.rec.Status, at.rec.ReasonCode = protocol.StatusKilled, protocol.ReasonCancelled
	at.rec.Message = "the attempt was cancelled: " + context.Cause(ctx).Error()
}

// finish writes attempt.json and lets the attempt folder go; notes the
// step was not given wait in it for the next attempt.
func (at *attempt) finish() error {
	at.pendUntold() // a handshake that failed never gave the step its notes
	at.closeArtifactsDir()
	at.rec.DurationMS = time.Since(at.started).Milliseconds()
	at.maskRecord()
	data, err := json.Marshal(at.rec, json.Deterministic(true))
	if err == nil {
		err = at.out.WriteFile(attemptdir.Record, append(data, '\n'), 0o644)
	}
	if cerr := at.out.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("%w: write the record: %v", ErrAttempt, err)
	}
	return nil
}

// absCommand resolves the step's program from the runner's own folder and
// PATH, as the handshake does: the step itself runs in the worktree, where
// a relative path would name another file.
func absCommand(argv []string) ([]string, error) {
	path, err := exec.LookPath(argv[0])
	if err != nil {
		return argv, nil // the handshake reports it as start_failed, with the cause
	}
	if path, err = filepath.Abs(path); err != nil {
		return nil, err
	}
	return append([]string{path}, argv[1:]...), nil
}
