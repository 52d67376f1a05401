package request

import (
	"bytes"
	"cmp"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/go-json-experiment/json/jsontext"

	"kusaw.dev/step/protocol"
	"kusaw.dev/step/schemas"
)

// ErrOptions is the condition behind every error [Synthesize] returns for
// options it cannot use: an unknown mode, a config that is not a JSON
// object, a missing artifacts folder or timeout. A command line maps it to
// a usage error.
var ErrOptions = errors.New("invalid request options")

// Options are what a local run says about the request it wants
// synthesized. The zero value of each field but ArtifactsDir and Timeout
// picks its default.
type Options struct {
	// Mode is why the step runs, one of protocol.Modes; "" means "pipeline".
	Mode string
	// Config is the step's config, a JSON object, checked as strictly as a
	// request; empty means {}.
	Config []byte
	// Worktree is the folder the step works in; it must exist and is made
	// absolute. "" means the current folder. When it lies inside a git
	// checkout with a commit, the checkout becomes the request's one repo:
	// label the top level's base name, worktree the top level, branch the
	// current one ("HEAD" when detached), base_ref where HEAD leaves the
	// remote's default branch (origin/HEAD) or else HEAD's commit.
	Worktree string
	// ArtifactsDir is the folder the step writes artifacts into, usually
	// OUT/artifacts. It is required and made absolute; it need not exist yet.
	ArtifactsDir string
	// Timeout is the time the attempt may take, sent as limits.time_left_ms
	// in whole milliseconds, rounded down. It is required and must be at
	// least a millisecond.
	Timeout time.Duration
	// StepName is the step's name (the handshake's name), used as both
	// step.name and step.id; "" means "step".
	StepName string
	// CompletionGrace is how long the runner waits after a result for the
	// step to exit, sent as completion_grace_seconds rounded up to whole
	// seconds; 0 means 5 s, the spec's default.
	CompletionGrace time.Duration
	// Context is a JSON object merged over the mode's sample context (see
	// [Synthesize]): objects member by member, recursively; any other
	// value, null included, replaces. Empty means the sample alone. The
	// merged request is checked against the request schema, so a context
	// member of the wrong shape is an [*InvalidError] at its pointer.
	Context []byte
	// Now tells the time the ids are stamped with; nil means time.Now.
	Now func() time.Time
}

// Synthesize builds the request of a local run: protocol_version 2, fresh
// run and task ids ("local-<UTC time>-<random hex>"), the options' mode,
// config, folders, timeout and step name, every other limit at the spec's
// default, no loop, and attempt 1. repos holds the git checkout the
// worktree is in (see [Options.Worktree]) or nothing.
//
// The context is a task titled "local run" with no earlier steps, plus
// the mode's sample data (see sampleContext: the workflows a classify step
// picks from, the items a triage step groups, the candidates a select step
// chooses among, ...), with [Options.Context] merged over it.
//
// During intake run_id, task_id, worktree and context.task are null and
// repos is empty (spec rows run_id, task_id, worktree, context.task: "null
// during intake"); during triage run_id is null (spec: "null during intake
// and triage"), and task_id is kept.
//
// Options it cannot use are errors that match [ErrOptions]. The request is
// checked against the schema before it is returned, like [Encode] does.
func Synthesize(opts Options) (*protocol.Request, error) {
	o, err := opts.resolve()
	if err != nil {
		return nil, err
	}
	// Encode checks the request against its schema: compile that while
	// git describes the checkout.
	go func() { _ = schemas.Precompile("request") }() // errors come back from Encode
	now := o.Now()
	req := &protocol.Request{
		ProtocolVersion:        protocol.Version,
		Mode:                   o.Mode,
		RunID:                  new(localID(now)),
		TaskID:                 new(localID(now)),
		Worktree:               new(o.Worktree),
		ArtifactsDir:           o.ArtifactsDir,
		Config:                 jsontext.Value(o.Config),
		Limits:                 defaultLimits(o.Timeout),
		Repos:                  []protocol.Repo{},
		Step:                   protocol.StepInfo{ID: o.StepName, Name: o.StepName, Attempt: 1},
		CompletionGraceSeconds: new(ceilSeconds(o.CompletionGrace)),
	}
	switch o.Mode {
	case "intake":
		req.RunID, req.TaskID, req.Worktree = nil, nil, nil
	case "triage":
		req.RunID = nil
		req.Repos = probeRepos(o.Worktree)
	default:
		req.Repos = probeRepos(o.Worktree)
	}
	s := sample{mode: o.Mode, worktree: o.Worktree, artifacts: o.ArtifactsDir, taskID: deref(req.TaskID), labels: repoLabelsOf(req.Repos)}
	doc, err := mergeContext(sampleContext(s), o.Context)
	if err != nil {
		return nil, err
	}
	if req.Context, err = toContext(doc); err != nil {
		return nil, err
	}
	if _, err := Encode(req); err != nil {
		return nil, err
	}
	return req, nil
}

// resolve fills in the defaults and checks every option, in field order.
func (o Options) resolve() (Options, error) {
	var err error
	o.Mode = cmp.Or(o.Mode, "pipeline")
	o.StepName = cmp.Or(o.StepName, "step")
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.CompletionGrace == 0 {
		o.CompletionGrace = protocol.DefaultCompletionGraceSeconds * time.Second
	}
	if !slices.Contains(protocol.Modes, o.Mode) {
		return o, fmt.Errorf("%w: mode %q; want one of %s", ErrOptions, o.Mode, strings.Join(protocol.Modes, ", "))
	}
	if o.Config, err = configObject(o.Config); err != nil {
		return o, err
	}
	if o.Worktree, err = worktreeDir(o.Worktree); err != nil {
		return o, err
	}
	if o.ArtifactsDir, err = artifactsDir(o.ArtifactsDir); err != nil {
		return o, err
	}
	return o, o.checkDurations()
}

func (o Options) checkDurations() error {
	if o.Timeout < time.Millisecond {
		return fmt.Errorf("%w: timeout %v; want at least 1ms", ErrOptions, o.Timeout)
	}
	if o.CompletionGrace < 0 {
		return fmt.Errorf("%w: completion grace %v is negative", ErrOptions, o.CompletionGrace)
	}
	return nil
}

// configObject checks that cfg is one strict JSON object and returns it
// compacted; empty means {}.
func configObject(cfg []byte) ([]byte, error) {
	if len(cfg) == 0 {
		return []byte("{}"), nil
	}
	doc, err := protocol.Parse(cfg)
	if err != nil {
		return nil, fmt.Errorf("%w: config: %w", ErrOptions, err)
	}
	if _, ok := doc.(map[string]any); !ok {
		return nil, fmt.Errorf("%w: config is %s; want a JSON object", ErrOptions, protocol.TypeName(doc))
	}
	v := jsontext.Value(bytes.Clone(cfg))
	if err := v.Compact(); err != nil {
		return nil, fmt.Errorf("%w: config: %w", ErrOptions, err)
	}
	return v, nil
}

// worktreeDir makes dir absolute ("" is the current folder) and checks
// that it is a folder.
func worktreeDir(dir string) (string, error) {
	abs, err := filepath.Abs(cmp.Or(dir, "."))
	if err != nil {
		return "", fmt.Errorf("%w: worktree: %w", ErrOptions, err)
	}
	fi, err := os.Stat(abs)
	if err != nil {
		return "", fmt.Errorf("%w: worktree: %w", ErrOptions, err)
	}
	if !fi.IsDir() {
		return "", fmt.Errorf("%w: worktree %s is not a folder", ErrOptions, abs)
	}
	return abs, nil
}

func artifactsDir(dir string) (string, error) {
	if dir == "" {
		return "", fmt.Errorf("%w: no artifacts folder; the caller names one, usually OUT/artifacts", ErrOptions)
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", fmt.Errorf("%w: artifacts folder: %w", ErrOptions, err)
	}
	return abs, nil
}

// localID returns a fresh id for a local run: "local-", the UTC time to
// the second, and 48 random bits in hex.
func localID(now time.Time) string {
	b := make([]byte, 6)
	rand.Read(b) // never fails; it crashes the program instead
	return "local-" + now.UTC().Format("20060102T150405Z") + "-" + hex.EncodeToString(b)
}

// defaultLimits are the spec's defaults, with time_left_ms from timeout
// and no budget bound.
func defaultLimits(timeout time.Duration) protocol.Limits {
	return protocol.Limits{
		BudgetLeftUSD:   nil,
		TimeLeftMS:      timeout.Milliseconds(),
		MaxLineBytes:    new(int64(protocol.DefaultMaxLineBytes)),
		LogCapBytes:     new(int64(protocol.DefaultLogCapBytes)),
		OutputsMaxBytes: new(int64(protocol.DefaultOutputsMaxBytes)),
		FinalTextBytes:  new(int64(protocol.DefaultFinalTextBytes)),
	}
}

// ceilSeconds rounds d up to whole seconds.
func ceilSeconds(d time.Duration) int {
	return int((d + time.Second - 1) / time.Second)
}
