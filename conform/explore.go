package conform

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/go-json-experiment/json"

	"kusaw.dev/step/handshake"
	"kusaw.dev/step/internal/explore"
	"kusaw.dev/step/protocol"
	"kusaw.dev/step/request"
	"kusaw.dev/step/schemas"
)

// runExplore is the kind of an attempt on a generated request.
const runExplore = "explore"

// shrinkBudget bounds the attempts spent shrinking one finding.
const shrinkBudget = 80

// Exploration is what `conform --explore` did after the battery.
type Exploration struct {
	Seed     uint64    `json:"seed"`     // the same seed gives the same requests
	Attempts int       `json:"attempts"` // generated requests run (the shrinking runs not counted)
	Invalid  int       `json:"invalid"`  // generated requests the request schema refused, not run
	Repeated int       `json:"repeated"` // requests run twice, for EX-002
	Findings []Finding `json:"findings"`
	Folder   string    `json:"folder,omitzero"` // where the findings are kept
}

// Finding is a generated request on which the step failed.
type Finding struct {
	Check   string `json:"check"` // EX-001 or EX-002
	Mode    string `json:"mode"`
	Reason  string `json:"reason"`  // the verdict's reason code, or "verdict_differs"
	Message string `json:"message"` // the verdict's message
	Request string `json:"request"` // the minimal request, saved
	Attempt string `json:"attempt"` // its attempt folder
	Replay  string `json:"replay"`  // the command that runs the request again
	Shrunk  int    `json:"shrink_runs"`
}

// isFinding reports whether a verdict's reason code makes a finding: the
// runner replaced the step's verdict because the step broke the protocol,
// crashed or hung. A step's own fail, retry or reject is not one.
func isFinding(reason string) bool {
	switch reason {
	case protocol.ReasonProtocolError, protocol.ReasonNoResult, protocol.ReasonStartFailed,
		protocol.ReasonOutputsTooLarge, protocol.ReasonOutputsInvalid, protocol.ReasonEffectsInvalid,
		protocol.ReasonArtifactInvalid, protocol.ReasonTimeout:
		return true
	}
	return false
}

// againEvery says which generated requests run twice, for EX-002: every
// fourth, so the check costs a quarter more, not double.
const againEvery = 4

// explorer is one exploration's state.
type explorer struct {
	b      *battery
	modes  []string
	gens   map[string]*explore.Generator // by mode, each from a base synthesized once
	seed   uint64
	ex     *Exploration
	shrink int // shrinking attempts run so far, for their folder names
}

// exploreRun is one generated request and its attempts.
type exploreRun struct {
	index       int
	mode        string
	doc         map[string]any // nil when no valid request came of it
	main, again *attemptRun
}

// exploreChecks runs opts.Explore attempts on generated requests, the
// modes in turn, and stops at the first finding, which it shrinks and
// keeps: the way property-based testing reports one smallest failing
// example rather than every one.
func (b *battery) exploreChecks(ctx context.Context, info *handshake.Info) *Exploration {
	if b.opts.Explore <= 0 || !b.wants("EX-001", "EX-002") {
		return nil
	}
	ex := &Exploration{Seed: b.opts.Seed, Findings: []Finding{}}
	if ex.Seed == 0 {
		ex.Seed = rand.Uint64()
	}
	switch {
	case info == nil:
		b.reportAll("EX", "", Skip, "the handshake failed; fix the HS checks first")
		return ex
	case info.Handshake.Interactive:
		b.reportAll("EX", "", Skip, "the step is interactive: exploration runs piped attempts only")
		return ex
	}
	e := &explorer{b: b, modes: b.modes(info.Handshake), gens: map[string]*explore.Generator{}, seed: ex.Seed, ex: ex}
	if err := e.generators(); err != nil {
		b.reportAll("EX", "", Skip, "the battery could not make requests: %v", err)
		return ex
	}
	e.run(ctx)
	e.report()
	return ex
}

// generators makes each mode's generator, from the request schema and a
// request synthesized for the mode.
func (e *explorer) generators() error {
	src, err := schemas.Source("request")
	if err != nil {
		return err
	}
	var schema map[string]any
	if err := json.Unmarshal(src, &schema); err != nil {
		return err
	}
	for _, mode := range e.modes {
		r := &attemptRun{mode: mode, kind: runExplore}
		if r.dirs, err = e.b.newDirs("explore-base-" + mode); err != nil {
			return err
		}
		raw, err := e.b.request(r)
		if err != nil {
			return err
		}
		base, err := tree(raw)
		if err != nil {
			return err
		}
		g := explore.NewGenerator(schema, base)
		// A step is not broken for missing a deadline shorter than its own
		// start-up: the floor is 20 handshakes, which a loaded machine
		// stretches as it does the attempt.
		g.Floor("/limits/time_left_ms", float64(20*e.b.startup.Milliseconds()))
		e.gens[mode] = g
	}
	return nil
}

// run explores, a batch of attempts at a time, until the budget is spent
// or a finding is made.
func (e *explorer) run(ctx context.Context) {
	total, batch := e.b.opts.Explore, max(1, runtime.GOMAXPROCS(0))
	for i := 0; i < total && len(e.ex.Findings) == 0 && ctx.Err() == nil; i += batch {
		runs := make([]*exploreRun, min(batch, total-i))
		for j := range runs {
			runs[j] = e.generate(i + j)
		}
		e.attempts(ctx, runs)
		for _, r := range runs {
			if e.judge(ctx, r) {
				break
			}
		}
		if p := e.b.opts.Progress; p != nil {
			p(i+len(runs), total, len(e.ex.Findings))
		}
	}
}

// generate makes request number i: the first of up to eight draws that
// the runner's own request checks accept.
func (e *explorer) generate(i int) *exploreRun {
	r := &exploreRun{index: i, mode: e.modes[i%len(e.modes)]}
	g := e.gens[r.mode]
	for try := range 8 {
		if doc := g.Request(e.seed, i*8+try); valid(doc) {
			r.doc = doc
			return r
		}
	}
	e.ex.Invalid++
	return r
}

// attempts runs the batch's attempts at once: each request, and every
// againEvery-th one a second time.
func (e *explorer) attempts(ctx context.Context, runs []*exploreRun) {
	var wg sync.WaitGroup
	for _, r := range runs {
		if r.doc == nil {
			continue
		}
		name := "explore-" + strconv.Itoa(r.index)
		wg.Go(func() { r.main = e.b.attemptNamed(ctx, r.mode, runExplore, name, rebased(r.doc)) })
		if r.index%againEvery == 0 {
			e.ex.Repeated++
			wg.Go(func() { r.again = e.b.attemptNamed(ctx, r.mode, runExplore, name+"-again", rebased(r.doc)) })
		}
	}
	wg.Wait()
	e.ex.Attempts += len(runs)
}

// judge looks at one generated request's attempts and, on a finding,
// shrinks and keeps it; it reports whether there was one.
func (e *explorer) judge(ctx context.Context, r *exploreRun) bool {
	defer r.cleanup()
	if r.main == nil || r.main.err != nil || ctx.Err() != nil {
		return false
	}
	rec := r.main.rec
	if isFinding(rec.ReasonCode) {
		small, runs := e.gens[r.mode].Shrink(r.doc, shrinkBudget, valid, func(doc map[string]any) bool {
			a := e.shrinkAttempt(ctx, r.mode, doc)
			return a.err == nil && a.rec.ReasonCode == rec.ReasonCode
		})
		e.keep(ctx, "EX-001", r.mode, small, runs)
		return true
	}
	if a := r.again; a != nil && a.err == nil && (a.rec.Status != rec.Status || a.rec.ReasonCode != rec.ReasonCode) {
		e.keep(ctx, "EX-002", r.mode, r.doc, 0)
		f := &e.ex.Findings[len(e.ex.Findings)-1]
		f.Reason = "verdict_differs"
		f.Message = fmt.Sprintf("the same request gave %s/%s, then %s/%s", rec.Status, rec.ReasonCode, a.rec.Status, a.rec.ReasonCode)
		return true
	}
	return false
}

// shrinkAttempt runs one candidate of the shrinker.
func (e *explorer) shrinkAttempt(ctx context.Context, mode string, doc map[string]any) *attemptRun {
	e.shrink++
	r := e.b.attemptNamed(ctx, mode, runExplore, "shrink-"+strconv.Itoa(e.shrink), rebased(doc))
	if r.dirs != nil {
		os.RemoveAll(r.dirs.root)
	}
	return r
}

// keep runs the finding's request once more in its own folder under the
// keep folder, saves the request beside it, and records the finding.
func (e *explorer) keep(ctx context.Context, check, mode string, doc map[string]any, shrunk int) {
	n := len(e.ex.Findings) + 1
	f := Finding{Check: check, Mode: mode, Shrunk: shrunk}
	dir, err := e.keepFolder()
	if err != nil {
		f.Message = err.Error()
		e.ex.Findings = append(e.ex.Findings, f)
		return
	}
	kb := &battery{opts: e.b.opts, scratch: dir, selected: e.b.selected, marker: e.b.marker}
	var raw []byte
	name := "finding-" + strconv.Itoa(n)
	r := kb.attemptNamed(ctx, mode, runExplore, name, func(base []byte) ([]byte, error) {
		var err error
		raw, err = rebased(doc)(base)
		return raw, err
	})
	f.Request = filepath.Join(dir, name, "request.json")
	if err := os.WriteFile(f.Request, raw, 0o644); err != nil {
		f.Message = err.Error()
	}
	if r.err == nil {
		f.Reason, f.Message, f.Attempt = r.rec.ReasonCode, r.rec.Message, r.dirs.out
	}
	f.Replay = "kusaw-step run --request " + shellQuote(f.Request) + " " + shellJoin(e.b.opts.Command)
	e.ex.Findings = append(e.ex.Findings, f)
}

// keepFolder returns the folder findings are kept in, made on first use:
// the battery's own when the caller chose it (--keep), else a new
// temporary folder, which outlives the battery.
func (e *explorer) keepFolder() (string, error) {
	if e.ex.Folder != "" {
		return e.ex.Folder, nil
	}
	dir, err := e.b.scratch, error(nil)
	if e.b.opts.Scratch == "" {
		dir, err = os.MkdirTemp("", "kusaw-explore-")
	}
	if err == nil {
		dir, err = filepath.Abs(dir)
	}
	e.ex.Folder = dir
	return dir, err
}

// report turns the exploration into the EX checks' outcomes.
func (e *explorer) report() {
	ex := e.ex
	summary := fmt.Sprintf("%d generated requests (seed %d", ex.Attempts, ex.Seed)
	if ex.Invalid > 0 {
		summary += fmt.Sprintf(", %d refused by the schema and not run", ex.Invalid)
	}
	summary += ")"
	for _, id := range []string{"EX-001", "EX-002"} {
		i := slices.IndexFunc(ex.Findings, func(f Finding) bool { return f.Check == id })
		if i < 0 && id == "EX-002" {
			e.b.report(id, "", Pass, "%d of %s ran twice, each time with the same verdict", ex.Repeated, summary)
			continue
		}
		if i < 0 {
			e.b.report(id, "", Pass, "%s", summary)
			continue
		}
		f := ex.Findings[i]
		e.b.report(id, f.Mode, Fail, "%s: %s: %s; minimal request (after %d shrinking runs): %s; replay: %s",
			summary, f.Reason, f.Message, f.Shrunk, f.Request, f.Replay)
	}
}

// cleanup removes the attempts' folders: only findings are kept.
func (r *exploreRun) cleanup() {
	for _, a := range []*attemptRun{r.main, r.again} {
		if a != nil && a.dirs != nil {
			os.RemoveAll(a.dirs.root)
		}
	}
}

// rebased returns the vary function that gives a step doc, moved to the
// attempt's folders.
func rebased(doc map[string]any) func([]byte) ([]byte, error) {
	return func(raw []byte) ([]byte, error) {
		base, err := tree(raw)
		if err != nil {
			return nil, err
		}
		return json.Marshal(explore.Rebase(doc, base), json.Deterministic(true))
	}
}

// valid reports whether the runner's request checks accept doc.
func valid(doc map[string]any) bool {
	raw, err := json.Marshal(doc, json.Deterministic(true))
	if err != nil {
		return false
	}
	_, err = request.Decode(raw)
	return err == nil
}

// tree decodes a request into the tree package explore works on.
func tree(raw []byte) (map[string]any, error) {
	var m map[string]any
	return m, json.Unmarshal(raw, &m)
}

// shellJoin quotes argv for a POSIX shell.
func shellJoin(argv []string) string {
	q := make([]string, len(argv))
	for i, a := range argv {
		q[i] = shellQuote(a)
	}
	return strings.Join(q, " ")
}

// shellQuote quotes s for a POSIX shell when it needs it.
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./=:@,+") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
