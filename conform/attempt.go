package conform

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/go-json-experiment/json"

	step "kusaw.dev/step"
	"kusaw.dev/step/attemptdir"
	"kusaw.dev/step/events"
	"kusaw.dev/step/handshake"
	"kusaw.dev/step/protocol"
	"kusaw.dev/step/request"
	"kusaw.dev/step/sandbox"
)

// The attempts the battery runs in each mode.
const (
	runMain    = "main"    // the attempt most checks judge
	runAgain   = "again"   // the same request again (AT-013)
	runExtras  = "extras"  // a request with unknown fields (AT-008)
	runSIGTERM = "sigterm" // stopped at its first event (AT-009)
	runTTY     = "tty"     // an interactive step on a pseudo-terminal (IA-001)
)

// atlasModes are the modes a step takes when its features list them.
var atlasModes = []string{"atlas_scan", "atlas_chunk", "atlas_embed", "atlas_map"}

// attemptRun is one attempt through step.Run and what the battery saw of
// it.
type attemptRun struct {
	mode, kind string
	dirs       *dirs
	req        *protocol.Request
	rec        *step.Record
	err        error                   // the runner's own failure
	begun      time.Time               // when step.Run was called
	started    time.Time               // when the handshake was done
	eventTimes []time.Time             // when each event arrived
	problems   []*events.ProtocolError // every protocol error, in order
	ended      time.Time               // when step.Run returned
	outside    []string                // files changed outside the worktree, artifacts dir and tmp
	leftover   []int                   // processes of the step still alive after it
	// resultWithFirst says the step's result line had reached the runner
	// (was in its stdout log) when the first event was handed on: both
	// came in the same read, written before the runner saw either.
	resultWithFirst bool
}

// modes returns the modes to run: pipeline, the atlas modes the features
// list, and the options' own, each once.
func (b *battery) modes(h *protocol.Handshake) []string {
	modes := []string{"pipeline"}
	for _, m := range atlasModes {
		if slices.Contains(h.Features, m) {
			modes = append(modes, m)
		}
	}
	for _, m := range b.opts.Modes {
		if !slices.Contains(modes, m) {
			modes = append(modes, m)
		}
	}
	return modes
}

// attemptChecks runs the attempts of every mode at once, then judges each
// mode.
func (b *battery) attemptChecks(ctx context.Context, info *handshake.Info) {
	switch {
	case info == nil:
		b.reportAll("AT", "pipeline", Skip, "the handshake failed (see HS-001…HS-009); fix it first")
		return
	case info.Handshake.Interactive:
		b.reportAll("AT", "pipeline", Skip, "the step is interactive: IA-001 judges its attempt")
		return
	}
	kinds := b.kinds()
	modes := b.modes(info.Handshake)
	runs := make([][]*attemptRun, len(modes))
	var wg sync.WaitGroup
	for i, mode := range modes {
		runs[i] = make([]*attemptRun, len(kinds))
		for j, kind := range kinds {
			wg.Go(func() { runs[i][j] = b.attempt(ctx, mode, kind) })
		}
	}
	wg.Wait()
	for i, mode := range modes {
		b.judge(mode, info, byKind(runs[i]))
	}
}

// kinds returns the attempts the selected checks need.
func (b *battery) kinds() []string {
	kinds := []string{runMain}
	if b.wants("AT-013") {
		kinds = append(kinds, runAgain)
	}
	if b.wants("AT-008") {
		kinds = append(kinds, runExtras)
	}
	if b.wants("AT-009") {
		kinds = append(kinds, runSIGTERM)
	}
	return kinds
}

func byKind(runs []*attemptRun) map[string]*attemptRun {
	m := make(map[string]*attemptRun, len(runs))
	for _, r := range runs {
		m[r.kind] = r
	}
	return m
}

// attempt runs one attempt of mode and watches it: its events and their
// times, the files it changes, the processes it leaves.
func (b *battery) attempt(ctx context.Context, mode, kind string) *attemptRun {
	return b.attemptNamed(ctx, mode, kind, mode+"-"+kind, nil)
}

// attemptNamed runs an attempt in the folder name; vary, when not nil,
// turns the request synthesized for the attempt's folders into the one
// the step is given.
func (b *battery) attemptNamed(ctx context.Context, mode, kind, name string, vary func([]byte) ([]byte, error)) *attemptRun {
	r := &attemptRun{mode: mode, kind: kind}
	if r.dirs, r.err = b.newDirs(name); r.err != nil {
		return r
	}
	raw, err := b.request(r)
	if err == nil && vary != nil {
		raw, err = r.vary(raw, vary)
	}
	if err != nil {
		r.err = err
		return r
	}
	watched := []string{r.dirs.root} // with HOME; the rest of the system is out of sight
	skipped := []string{r.dirs.worktree, r.dirs.artifacts, r.dirs.tmp, r.dirs.out}
	before := snapshot(watched, skipped)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	a := step.Attempt{
		Command: b.opts.Command, Request: raw, OutDir: r.dirs.out, Env: b.env(r.dirs, name),
		HandshakeTimeout: b.opts.HandshakeTimeout, Grace: b.opts.Grace, KeepGoing: true,
		Observer: r.observer(kind, cancel), Sandbox: b.sandbox(),
	}
	if kind == runTTY {
		a.Terminal = step.Terminal{Input: strings.NewReader(answers(b.opts.Answers))}
	}
	r.begun = time.Now()
	r.rec, r.err = step.Run(ctx, a)
	r.ended = time.Now()
	r.outside = diff(before, snapshot(watched, skipped))
	r.leftover = killMarked(r.marker())
	return r
}

// sandbox returns the attempts' sandbox options: run's, unless the caller
// asked for its own environment.
func (b *battery) sandbox() *sandbox.Options {
	if b.opts.InheritEnv {
		return nil
	}
	mode := b.opts.Sandbox
	if mode == "" {
		mode = "off"
	}
	return &sandbox.Options{Flags: sandbox.Flags{Mode: mode}}
}

// marker is the environment entry every process of the attempt inherits:
// its artifacts dir, unique to it, which the runner sets in the built
// environment too.
func (r *attemptRun) marker() string {
	return "KUSAW_ARTIFACTS_DIR=" + r.dirs.artifacts
}

// observer notes the attempt's events and problems; at the first event
// it looks whether the result was written already (AT-012); in the
// SIGTERM run it cancels the attempt there.
func (r *attemptRun) observer(kind string, cancel func()) step.Observer {
	return step.Observer{
		Handshake: func(*handshake.Info) { r.started = time.Now() },
		Event: func(protocol.Event) {
			if len(r.eventTimes) == 0 {
				r.resultWithFirst = resultWritten(filepath.Join(r.dirs.out, attemptdir.Stdout))
			}
			r.eventTimes = append(r.eventTimes, time.Now())
			if kind == runSIGTERM {
				cancel()
			}
		},
		Problem: func(p *events.ProtocolError) { r.problems = append(r.problems, p) },
	}
}

// request builds the attempt's request: synthesized for its folders, and
// for the extras run with unknown fields at several levels.
func (b *battery) request(r *attemptRun) ([]byte, error) {
	req, err := request.Synthesize(request.Options{
		Mode: r.mode, Config: b.opts.Config, Worktree: r.dirs.worktree, ArtifactsDir: r.dirs.artifacts,
		Timeout: b.opts.Timeout, StepName: "conform", CompletionGrace: b.opts.CompletionGrace,
	})
	if err != nil {
		return nil, err
	}
	r.req = req
	raw, err := request.Encode(req)
	if err != nil || r.kind != runExtras {
		return raw, err
	}
	return withUnknownFields(raw)
}

// vary applies vary to the request and keeps the result as the run's
// request.
func (r *attemptRun) vary(raw []byte, vary func([]byte) ([]byte, error)) ([]byte, error) {
	raw, err := vary(raw)
	if err != nil {
		return nil, err
	}
	r.req, err = request.Decode(raw)
	return raw, err
}

// withUnknownFields adds fields no version of the protocol defines to the
// request and to its nested objects, as a newer runner might.
func withUnknownFields(raw []byte) ([]byte, error) {
	var doc map[string]any
	if err := json.Unmarshal(raw, &doc); err != nil {
		return nil, err
	}
	extra := map[string]any{"from": "kusaw-step conform", "list": []any{1, "two"}}
	doc["x_conform_future"] = extra
	for _, key := range []string{"context", "limits", "step"} {
		if obj, ok := doc[key].(map[string]any); ok {
			obj["x_conform_future"] = extra
		}
	}
	return json.Marshal(doc, json.Deterministic(true))
}

// killMarked ends the processes whose environment holds entry, those a
// run left behind, and returns their ids.
func killMarked(entry string) []int {
	pids := findMarked(entry)
	for _, pid := range pids {
		kill(pid)
	}
	return pids
}

// resultWritten reports whether the stdout log at path holds a result
// line. The runner writes each chunk it reads from the step's stdout to
// the log before it parses the chunk's lines.
func resultWritten(path string) bool {
	data, err := os.ReadFile(path)
	if err != nil {
		return false
	}
	for line := range bytes.SplitSeq(data, []byte("\n")) {
		var head struct {
			Type string `json:"type"`
		}
		if json.Unmarshal(line, &head) == nil && head.Type == "result" {
			return true
		}
	}
	return false
}
