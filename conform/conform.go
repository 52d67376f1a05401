package conform

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"
)

// ErrSelection is returned by [Run] and [Selection.Selected] when --focus
// and --skip select no check, or a pattern is malformed.
var ErrSelection = errors.New("conform: empty or invalid check selection")

// Defaults of [Options].
const (
	DefaultHandshakeTimeout = 10 * time.Second
	DefaultTimeout          = 60 * time.Second
	DefaultGrace            = 3 * time.Second
	DefaultCompletionGrace  = 2 * time.Second
)

// Options configure a battery. Command is required; the zero value of
// every other field is a sensible default.
type Options struct {
	// Command is the step's argv.
	Command []string
	// Modes are modes to run besides pipeline (always run) and the atlas
	// modes the handshake's features list.
	Modes []string
	// Config is the step's config, a JSON object; empty means {}.
	Config []byte
	// Answers are what an interactive step is told on its terminal, one
	// line each, then end of file.
	Answers []string
	// Selection picks the checks to run.
	Selection Selection
	// HandshakeTimeout bounds each handshake; 0 means DefaultHandshakeTimeout.
	HandshakeTimeout time.Duration
	// Timeout is each attempt's time_left_ms; 0 means DefaultTimeout.
	Timeout time.Duration
	// Grace is how long the step has between SIGTERM and SIGKILL; 0 means
	// DefaultGrace.
	Grace time.Duration
	// CompletionGrace is the requests' completion_grace_seconds, rounded
	// up to whole seconds; 0 means DefaultCompletionGrace.
	CompletionGrace time.Duration
	// Explore is how many attempts on requests generated from the request
	// schema run after the battery (checks EX-001 and EX-002); 0 means none.
	Explore int
	// Seed picks the generated requests: the same seed gives the same
	// requests. 0 means a random seed, reported in [Exploration.Seed].
	Seed uint64
	// Progress, when not nil, hears after each batch of explored attempts
	// how many are done of how many, and how many findings there are.
	Progress func(done, total, findings int)
	// Scratch is the folder the battery works in (worktrees, artifacts,
	// attempt folders); "" means a new temporary folder, removed at the end.
	// Exploration findings are kept in it, or else in a temporary folder of
	// their own that is not removed.
	Scratch string
	// Sandbox is the sandbox of the attempts and of the handshakes (both
	// probes and handshake.Run), as run's --sandbox (kusaw-step conform
	// defaults it to auto, as run does). "" means off: a sandbox runs the
	// step through the runner's own binary, which must then serve
	// sandbox.RunHelper in its main (kusaw-step does; a step author's test
	// binary usually does not). Either way the attempts get the
	// environment run builds, from a small base, the KUSAW_* variables and
	// the step's needs_env, and the handshakes the base and KUSAW_* ones
	// only, never the caller's whole environment.
	Sandbox string
	// InheritEnv runs the attempts and the handshakes with no sandbox and
	// the caller's whole environment instead (as a library caller of
	// step.Run without Sandbox options does). A step may then pass here
	// and fail under run: a Python step that forgets to flush, say, with
	// PYTHONUNBUFFERED=1 set by the caller.
	InheritEnv bool
}

func (o Options) withDefaults() Options {
	o.HandshakeTimeout = orDur(o.HandshakeTimeout, DefaultHandshakeTimeout)
	o.Timeout = orDur(o.Timeout, DefaultTimeout)
	o.Grace = orDur(o.Grace, DefaultGrace)
	o.CompletionGrace = orDur(o.CompletionGrace, DefaultCompletionGrace)
	return o
}

func orDur(d, def time.Duration) time.Duration {
	if d <= 0 {
		return def
	}
	return d
}

// Outcome is one check's verdict, in one mode for attempt checks.
type Outcome struct {
	Check   `json:",inline"`
	Mode    string `json:"mode,omitzero"` // the request's mode; "" for handshake checks
	Status  Status `json:"status"`
	Message string `json:"message,omitzero"` // what was found and, on a failure, what to fix
}

// Report is the battery's verdict on one step.
type Report struct {
	Command  []string      `json:"command"`
	Step     string        `json:"step,omitzero"` // name and version, from the handshake
	Outcomes []Outcome     `json:"outcomes"`
	Explore  *Exploration  `json:"explore,omitzero"` // what --explore did; nil without it
	Duration time.Duration `json:"-"`                // how long the battery took
}

// Passed reports whether the battery passed: no MUST check failed, and
// it showed something ([Report.Why] says what went wrong otherwise).
func (r *Report) Passed() bool { return r.Why() == "" }

// Why says why the battery did not pass, or "" when it did: a MUST check
// failed (the handshake's failure always counts, whatever the selection),
// or every selected MUST check was skipped, so nothing was shown to
// conform. With no MUST check selected, a battery that skipped every
// check did not pass either.
func (r *Report) Why() string {
	if ids := r.failedMust(); len(ids) > 0 {
		return "MUST checks failed: " + strings.Join(ids, ", ")
	}
	must, mustSkipped := 0, 0
	for _, o := range r.Outcomes {
		if o.Level == Must {
			must++
			if o.Status == Skip {
				mustSkipped++
			}
		}
	}
	switch {
	case must > 0 && mustSkipped == must:
		return fmt.Sprintf("every selected MUST check (%d) was skipped: nothing was checked; see each skip's reason", must)
	case must == 0 && r.Count(Skip) == len(r.Outcomes):
		return "every selected check was skipped: nothing was checked"
	}
	return ""
}

func (r *Report) failedMust() []string {
	var ids []string
	for _, o := range r.Outcomes {
		if o.Status == Fail && o.Level == Must && !slices.Contains(ids, o.ID) {
			ids = append(ids, o.ID)
		}
	}
	return ids
}

// Count returns how many outcomes have status s.
func (r *Report) Count(s Status) int {
	n := 0
	for _, o := range r.Outcomes {
		if o.Status == s {
			n++
		}
	}
	return n
}

// Failed returns the ids of the failed checks, each once, in battery order.
func (r *Report) Failed() []string {
	var ids []string
	for _, o := range r.Outcomes {
		if o.Status == Fail && !slices.Contains(ids, o.ID) {
			ids = append(ids, o.ID)
		}
	}
	return ids
}

// Run runs the battery on one step and returns its report. The error is
// for the battery's own failures (the selection, the scratch folder); a
// step that breaks the protocol gives a report with failed checks and a
// nil error; when ctx is done the report so far comes with ctx's error.
// Run returns when every process it started is gone.
func Run(ctx context.Context, opts Options) (*Report, error) {
	opts = opts.withDefaults()
	if len(opts.Command) == 0 {
		return nil, errors.New("conform: no step command")
	}
	opts.Command = absCommand(opts.Command)
	selected, err := opts.Selection.Selected()
	if err != nil {
		return nil, err
	}
	if opts.Explore <= 0 {
		maps.DeleteFunc(selected, func(id string, _ bool) bool { return strings.HasPrefix(id, "EX-") })
		if len(selected) == 0 {
			return nil, fmt.Errorf("%w: the EX checks run only with --explore N", ErrSelection)
		}
	}
	scratch, cleanup, err := scratchDir(opts.Scratch)
	if err != nil {
		return nil, err
	}
	defer cleanup()
	start := time.Now()
	b := &battery{opts: opts, scratch: scratch, selected: selected, marker: marker()}
	info := b.handshakeChecks(ctx)
	b.attemptChecks(ctx, info)
	b.interactiveCheck(ctx, info)
	ex := b.exploreChecks(ctx, info)
	rep := &Report{Command: opts.Command, Outcomes: b.sorted(), Explore: ex, Duration: time.Since(start)}
	if info != nil {
		rep.Step = info.Handshake.Name + " " + info.Handshake.Version
	}
	return rep, ctx.Err()
}

// absCommand makes a relative program path absolute: the step runs in
// its worktree, and a relative path would be taken from there.
func absCommand(argv []string) []string {
	argv = slices.Clone(argv)
	if strings.ContainsRune(argv[0], filepath.Separator) && !filepath.IsAbs(argv[0]) {
		if abs, err := filepath.Abs(argv[0]); err == nil {
			argv[0] = abs
		}
	}
	return argv
}

func scratchDir(given string) (string, func(), error) {
	if given != "" {
		return given, func() {}, os.MkdirAll(given, 0o755)
	}
	dir, err := os.MkdirTemp("", "kusaw-conform-")
	if err != nil {
		return "", nil, fmt.Errorf("conform: scratch folder: %w", err)
	}
	return dir, func() { os.RemoveAll(dir) }, nil
}

// battery is the state of one Run.
type battery struct {
	opts     Options
	scratch  string
	selected map[string]bool
	marker   string        // an environment entry every handshake process inherits
	startup  time.Duration // how long the plain handshake took: the step's start-up, roughly (explore's deadline floor)

	mu       sync.Mutex
	outcomes []Outcome // of the selected checks
	unasked  []Outcome // of the others: reported only when a prerequisite fails
}

// wants reports whether any of the checks ids is selected.
func (b *battery) wants(ids ...string) bool {
	return slices.ContainsFunc(ids, func(id string) bool { return b.selected[id] })
}

// report records an outcome; one of a check not selected is kept aside.
func (b *battery) report(id, mode string, s Status, format string, args ...any) {
	o := Outcome{Check: lookup(id), Mode: mode, Status: s, Message: fmt.Sprintf(format, args...)}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.selected[id] {
		b.outcomes = append(b.outcomes, o)
	} else {
		b.unasked = append(b.unasked, o)
	}
}

// prerequisiteFailed reports the failed handshake whatever the selection:
// every other check depends on it. The failed HS checks not selected join
// the report, and when none failed (handshake.Run failed where the probes
// did not, say on a timeout under load), HS-001 fails with the cause.
func (b *battery) prerequisiteFailed(err error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	failed := slices.ContainsFunc(b.outcomes, func(o Outcome) bool { return o.Status == Fail && strings.HasPrefix(o.ID, "HS") })
	for _, o := range b.unasked {
		if o.Status == Fail && strings.HasPrefix(o.ID, "HS") {
			o.Message += " (reported although not selected: every check needs the handshake)"
			b.outcomes = append(b.outcomes, o)
			failed = true
		}
	}
	if !failed {
		b.outcomes = slices.DeleteFunc(b.outcomes, func(o Outcome) bool { return o.ID == "HS-001" })
		b.outcomes = append(b.outcomes, Outcome{Check: lookup("HS-001"), Status: Fail,
			Message: "the runner's handshake failed: " + causeOf(err) + "; no attempt could run"})
	}
}

// sorted returns the outcomes in battery order, then by mode.
func (b *battery) sorted() []Outcome {
	order := make(map[string]int, len(Checks))
	for i, c := range Checks {
		order[c.ID] = i
	}
	out := slices.Clone(b.outcomes)
	slices.SortStableFunc(out, func(x, y Outcome) int {
		if d := order[x.ID] - order[y.ID]; d != 0 {
			return d
		}
		return modeRank(x.Mode) - modeRank(y.Mode)
	})
	return out
}
