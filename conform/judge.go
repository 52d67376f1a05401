package conform

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	step "kusaw.dev/step"
	"kusaw.dev/step/events"
	"kusaw.dev/step/handshake"
	"kusaw.dev/step/protocol"
	"kusaw.dev/step/result"
	"kusaw.dev/step/schemas"
)

// judge runs the attempt checks of one mode on its attempts.
func (b *battery) judge(mode string, info *handshake.Info, runs map[string]*attemptRun) {
	main := runs[runMain]
	if main.err != nil {
		b.reportAll("AT", mode, Skip, "the battery could not run the attempt: %v", main.err)
		return
	}
	res := main.result(info)
	b.checkResult(main, res)
	b.checkProblems(main)
	b.checkOutputs(main, info, res)
	b.checkArtifacts(main)
	b.checkLinger(main)
	b.checkSame(mode, "AT-008", main, runs[runExtras], "with unknown request fields (x_conform_future)", "ignore the request fields you do not know")
	b.checkSIGTERM(runs[runSIGTERM])
	b.checkLeftovers(mode, runs)
	b.checkOutside(mode, runs)
	b.checkStreaming(main)
	b.checkSame(mode, "AT-013", main, runs[runAgain], "on a second run", "make the verdict depend on the request only")
	b.checkUnknownFields(main)
	b.checkExitStatus(main)
}

// checkExitStatus is AT-015: the record's exit_after_result warning.
func (b *battery) checkExitStatus(r *attemptRun) {
	switch {
	case hasWarning(r, step.WarnExitAfterResult):
		b.report("AT-015", r.mode, Fail, "%s", warningText(r, step.WarnExitAfterResult))
	case r.rec.Status != protocol.StatusOK || r.rec.ExitCode == nil:
		b.report("AT-015", r.mode, Skip, "no ok result, or the step was stopped (AT-001, AT-006)")
	default:
		b.report("AT-015", r.mode, Pass, "exited %d", *r.rec.ExitCode)
	}
}

// resultLine is the main attempt's result, as written in result.json.
type resultLine struct {
	raw     []byte
	verdict *result.Verdict
	outputs any // parsed; nil when the result has none
}

// result reads the attempt's stdout log back with package events and
// checks its result line with package result; nil when there was none. The
// record alone will not do: after a protocol error it keeps no result.
func (r *attemptRun) result(info *handshake.Info) *resultLine {
	f, err := os.Open(r.rec.Logs.Stdout.Path)
	if err != nil {
		return nil
	}
	defer f.Close()
	sum, _ := events.Read(f, events.Options{MaxLine: maxLine(r.req)})
	if sum == nil || sum.Result == nil {
		return nil
	}
	res := &resultLine{raw: sum.Result}
	res.verdict = result.Check(sum.Result, result.Options{Request: r.req, OutputsSchema: info.OutputsSchema, ArtifactsDir: r.dirs.artifacts})
	if doc, err := protocol.Parse(sum.Result); err == nil {
		if m, ok := doc.(map[string]any); ok {
			res.outputs = m["outputs"]
		}
	}
	return res
}

// checkResult is AT-001.
func (b *battery) checkResult(r *attemptRun, res *resultLine) {
	for _, p := range r.problems {
		if errors.Is(p, events.ErrAfterResult) || errors.Is(p, events.ErrSecondResult) {
			b.report("AT-001", r.mode, Fail, "%v; the result must be the last line on stdout", p)
			return
		}
	}
	switch {
	case res == nil:
		b.report("AT-001", r.mode, Fail, "no result (%s): %s; print one result line last on stdout", r.rec.ReasonCode, r.rec.Message)
	case res.verdict.ReasonCode == protocol.ReasonProtocolError:
		b.report("AT-001", r.mode, Fail, "%s; see kusaw-step schema result", res.verdict.Message)
	default:
		b.report("AT-001", r.mode, Pass, "%s/%s", r.rec.Status, r.rec.ReasonCode)
	}
}

// checkProblems is AT-002 (invalid events) and AT-007 (lines that are
// not protocol lines at all).
func (b *battery) checkProblems(r *attemptRun) {
	var bad, alien []*events.ProtocolError
	for _, p := range r.problems {
		var se *schemas.Error
		switch {
		case errors.As(p, &se), errors.Is(p, protocol.ErrUnknownEvent):
			bad = append(bad, p)
		case errors.Is(p, protocol.ErrSyntax), errors.Is(p, events.ErrNotObject), errors.Is(p, events.ErrLineTooLong):
			alien = append(alien, p)
		}
	}
	b.problemOutcome("AT-002", r, bad, fmt.Sprintf("%d events, all valid", len(r.eventTimes)), "fix the event to match kusaw-step schema event")
	b.problemOutcome("AT-007", r, alien, "every stdout line is a protocol line", "print only protocol lines on stdout and log to stderr")
}

func (b *battery) problemOutcome(id string, r *attemptRun, ps []*events.ProtocolError, pass, fix string) {
	if len(ps) == 0 && r.rec.Logs.Stdout.Total == 0 {
		b.report(id, r.mode, Skip, "the step printed nothing on stdout")
		return
	}
	if len(ps) == 0 {
		b.report(id, r.mode, Pass, "%s", pass)
		return
	}
	more := ""
	if len(ps) > 1 {
		more = fmt.Sprintf(" (and %d more)", len(ps)-1)
	}
	b.report(id, r.mode, Fail, "%v%s; %s", ps[0], more, fix)
}

// checkOutputs is AT-003, AT-004 and, in mode score, AT-014.
func (b *battery) checkOutputs(r *attemptRun, info *handshake.Info, res *resultLine) {
	if res == nil || res.verdict.ReasonCode == protocol.ReasonProtocolError {
		b.report("AT-003", r.mode, Skip, "no valid result (AT-001)")
		b.report("AT-004", r.mode, Skip, "no valid result (AT-001)")
		b.report("AT-014", r.mode, Skip, "no valid result (AT-001)")
		return
	}
	if slices.ContainsFunc(res.verdict.Failures, func(f result.Failure) bool { return f.ReasonCode == protocol.ReasonOutputsTooLarge }) {
		b.report("AT-003", r.mode, Fail, "%s; put large data in an artifact", res.verdict.Message)
	} else {
		b.report("AT-003", r.mode, Pass, "within limits.outputs_max_bytes")
	}
	b.checkSchema("AT-004", r.mode, info.OutputsSchema, res.outputs, "the step declares no outputs_schema")
	if r.mode != "score" {
		b.report("AT-014", r.mode, Skip, "applies to mode score; run with --mode score")
		return
	}
	score, err := scoreSchema()
	if err != nil {
		b.report("AT-014", r.mode, Skip, "%v", err)
		return
	}
	b.checkSchema("AT-014", r.mode, score, res.outputs, "")
}

// checkSchema checks outputs against s; a nil s skips with why.
func (b *battery) checkSchema(id, mode string, s *schemas.Schema, outputs any, why string) {
	switch {
	case s == nil:
		b.report(id, mode, Skip, "%s", why)
	case outputs == nil:
		b.report(id, mode, Skip, "the result has no outputs")
	default:
		if err := s.Validate(outputs); err != nil {
			b.report(id, mode, Fail, "%v; return outputs the schema accepts", err)
			return
		}
		b.report(id, mode, Pass, "valid")
	}
}

// checkArtifacts is AT-005.
func (b *battery) checkArtifacts(r *attemptRun) {
	switch {
	case r.rec.ReasonCode == protocol.ReasonArtifactInvalid:
		b.report("AT-005", r.mode, Fail, "%s; write artifacts as regular files under KUSAW_ARTIFACTS_DIR and give their paths relative to it", r.rec.Message)
	case len(r.rec.Artifacts) == 0:
		b.report("AT-005", r.mode, Skip, "the step published no artifact")
	default:
		b.report("AT-005", r.mode, Pass, "artifacts: %d, all present", len(r.rec.Artifacts))
	}
}

// checkLinger is AT-006.
func (b *battery) checkLinger(r *attemptRun) {
	switch {
	case hasWarning(r, "lingered_after_result"):
		b.report("AT-006", r.mode, Fail, "the step was still running %v after its result; exit once the result is printed", b.opts.CompletionGrace)
	case r.rec.ResultPath == "":
		b.report("AT-006", r.mode, Skip, "no result (AT-001)")
	default:
		b.report("AT-006", r.mode, Pass, "exited after its result")
	}
}

func hasWarning(r *attemptRun, code string) bool {
	return r != nil && r.rec != nil && slices.ContainsFunc(r.rec.Warnings, func(w protocol.Warning) bool { return w.Code == code })
}

// warningText returns the message of r's first warning with code.
func warningText(r *attemptRun, code string) string {
	for _, w := range r.rec.Warnings {
		if w.Code == code {
			return w.Message
		}
	}
	return ""
}

// checkSame is AT-008 and AT-013: other gives the verdict main gave.
func (b *battery) checkSame(mode, id string, main, other *attemptRun, how, fix string) {
	switch {
	case other == nil:
		return
	case other.err != nil:
		b.report(id, mode, Skip, "the battery could not run the attempt: %v", other.err)
	case verdictOf(other) != verdictOf(main):
		b.report(id, mode, Fail, "%s the verdict was %s, not %s (%s); %s", how, verdictOf(other), verdictOf(main), other.rec.Message, fix)
	default:
		b.report(id, mode, Pass, "%s the verdict was %s again", how, verdictOf(other))
	}
}

func verdictOf(r *attemptRun) string { return r.rec.Status + "/" + r.rec.ReasonCode }

// checkSIGTERM is AT-009.
func (b *battery) checkSIGTERM(r *attemptRun) {
	switch {
	case r == nil:
		return
	case r.err != nil:
		b.report("AT-009", r.mode, Skip, "the battery could not run the attempt: %v", r.err)
	case hasWarning(r, "killed"):
		b.report("AT-009", r.mode, Fail, "the step did not stop within %v of SIGTERM and was killed; on SIGTERM, stop and exit", b.opts.Grace)
	case r.rec.ReasonCode == protocol.ReasonCancelled || hasWarning(r, "cancelled_after_result"):
		b.report("AT-009", r.mode, Pass, "stopped on SIGTERM")
	default:
		b.report("AT-009", r.mode, Skip, "the step ended before SIGTERM reached it (it is sent at the first event)")
	}
}

// checkLeftovers is AT-010, over every attempt of the mode.
func (b *battery) checkLeftovers(mode string, runs map[string]*attemptRun) {
	for _, r := range runs {
		if len(r.leftover) > 0 {
			b.report("AT-010", mode, Fail, "processes %v of the %s attempt outlived it; wait for every process you start, and do not detach them", r.leftover, r.kind)
			return
		}
		if hasWarning(r, step.WarnProcessesLeft) {
			b.report("AT-010", mode, Fail, "the %s attempt left processes running when the step exited (%s); wait for every process you start, and do not detach them", r.kind, warningText(r, step.WarnProcessesLeft))
			return
		}
		if hasWarning(r, "stdout_held_open") {
			b.report("AT-010", mode, Fail, "a process of the %s attempt left the step's group and held stdout open; wait for every process you start", r.kind)
			return
		}
	}
	if !canFindProcesses {
		b.report("AT-010", mode, Skip, "finding leftover processes needs /proc (Linux)")
		return
	}
	b.report("AT-010", mode, Pass, "no process left")
}

// checkOutside is AT-011, over every attempt of the mode.
func (b *battery) checkOutside(mode string, runs map[string]*attemptRun) {
	for _, r := range runs {
		if len(r.outside) > 0 {
			b.report("AT-011", mode, Fail, "the %s attempt changed %s; write only in the worktree, KUSAW_ARTIFACTS_DIR and TMPDIR", r.kind, listCut(r.outside))
			return
		}
	}
	b.report("AT-011", mode, Pass, "nothing changed in HOME or beside the worktree")
}

// minWork is how long a step must run beyond its start-up before its
// first event for AT-012 to call events that came all at once, with the
// result, buffered: a step that does less work than that cannot be told
// from one that prints as it goes. The start-up is measured in the same
// attempt (its own handshake), so a loaded machine stretches both.
const minWork = time.Second

// checkStreaming is AT-012. The evidence is the step's own: whether its
// result had already been written when its first event reached the
// runner (they came in one read of stdout). A step that prints each event
// as it happens and its result after its work cannot produce that, however
// slow the machine; a step that buffers its output writes everything in
// one go at exit, and always does.
func (b *battery) checkStreaming(r *attemptRun) {
	n := len(r.eventTimes)
	startup := r.started.Sub(r.begun)
	before := time.Duration(0)
	if n > 0 {
		before = r.eventTimes[0].Sub(r.started)
	}
	switch {
	case n == 0:
		b.report("AT-012", r.mode, Skip, "the step printed no events")
	case !r.resultWithFirst:
		b.report("AT-012", r.mode, Pass, "the first of %d events reached the runner before the result was written", n)
	case n < 2:
		b.report("AT-012", r.mode, Skip, "the step's one event came with its result: too little to tell")
	case before < minWork+2*startup:
		b.report("AT-012", r.mode, Skip, "all %d events came with the result, %v after the handshake (start-up %v): too quick to tell", n, before.Round(millisecond), startup.Round(millisecond))
	default:
		b.report("AT-012", r.mode, Fail, "all %d events came at exit, in one write with the result, after the step ran %v (its start-up takes %v); flush stdout after each event line (Python: print(..., flush=True))",
			n, before.Round(millisecond), startup.Round(millisecond))
	}
}

// scoreSchema is the built-in Score outputs schema.
func scoreSchema() (*schemas.Schema, error) {
	src, err := schemas.Source("outputs:score")
	if err != nil {
		return nil, err
	}
	doc, err := protocol.Parse(src)
	if err != nil {
		return nil, err
	}
	return schemas.Compile("Score outputs", doc)
}

// maxLine is the request's max_line_bytes.
func maxLine(req *protocol.Request) int {
	if req.Limits.MaxLineBytes == nil {
		return protocol.DefaultMaxLineBytes
	}
	return int(*req.Limits.MaxLineBytes)
}

// interactiveCheck is IA-001: an interactive step runs through step.Run
// on a pseudo-terminal, told the options' answers, and must read its
// request from KUSAW_REQUEST, append valid events to KUSAW_EVENTS and
// write a valid result to KUSAW_RESULT.
func (b *battery) interactiveCheck(ctx context.Context, info *handshake.Info) {
	switch {
	case !b.wants("IA-001"):
		return
	case info == nil:
		b.report("IA-001", "", Skip, "the handshake failed; fix the HS checks first")
		return
	case !info.Handshake.Interactive:
		b.report("IA-001", "", Skip, "the step is not interactive")
		return
	}
	r := b.attempt(ctx, "pipeline", runTTY)
	rec := r.rec
	switch {
	case r.err != nil:
		b.report("IA-001", "", Skip, "the battery could not run the attempt: %v", r.err)
	case len(rec.ProtocolErrors) > 0:
		p := rec.ProtocolErrors[0]
		b.report("IA-001", "", Fail, "line %d: %s; append only valid event lines to KUSAW_EVENTS and write the result to KUSAW_RESULT", p.Line, p.Cause)
	case rec.ResultPath == "" || rec.ReasonCode == protocol.ReasonProtocolError:
		msg := rec.Message
		if !strings.Contains(msg, "KUSAW_RESULT") {
			msg += "; write the result to the file KUSAW_RESULT names"
		}
		b.report("IA-001", "", Fail, "no valid result (%s/%s): %s%s", rec.Status, rec.ReasonCode, msg, answerHint(b.opts.Answers, rec))
	case len(r.leftover) > 0:
		b.report("IA-001", "", Fail, "processes %v outlived the attempt; wait for every process you start", r.leftover)
	default:
		b.report("IA-001", "", Pass, "%s/%s through the files (answers given: %d): %s", rec.Status, rec.ReasonCode, len(b.opts.Answers), rec.Message)
	}
}

// answers is what the step's terminal is told: one line per answer.
func answers(list []string) string {
	if len(list) == 0 {
		return ""
	}
	return strings.Join(list, "\n") + "\n"
}
