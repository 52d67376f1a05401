package step

import (
	"fmt"
	"os"
	"syscall"

	"kusaw.dev/step/attemptdir"
	"kusaw.dev/step/events"
	"kusaw.dev/step/protocol"
	"kusaw.dev/step/result"
)

// judge turns what the step did into the record's verdict.
func (at *attempt) judge(out *output) {
	rec := at.rec
	at.recordProcess(out)
	at.recordLogs(out)
	at.removePlantedLink()
	if out.startErr != nil {
		rec.ReasonCode = protocol.ReasonStartFailed
		rec.Message = "the step could not be started: " + out.startErr.Error()
		return
	}
	sum := out.summary
	rec.Events = sum.Events
	rec.Usage = out.usage
	rec.ProtocolErrors = problemRecords(sum)
	switch {
	case len(sum.Problems) > 0:
		at.protocolError(sum.Problems[0], out)
	case sum.Result != nil:
		at.takeResult(sum.Result, sum.ResultLine)
		at.explainResult(sum.Result, sum.ResultLine, out)
		at.refuseSecretArtifacts()
		at.checkEventArtifacts(&out.artifacts)
		at.noteStop(out.stop)
		at.noteExit(out)
	case out.stop == stopCancelled:
		rec.Status, rec.ReasonCode = protocol.StatusKilled, protocol.ReasonCancelled
		rec.Message = "the attempt was cancelled before the step gave a result"
	case out.stop == stopTimeout:
		rec.Status, rec.ReasonCode = protocol.StatusKilled, protocol.ReasonTimeout
		rec.Message = fmt.Sprintf("the step gave no result within time_left_ms (%s)", at.limits.timeLeft)
	default:
		rec.ReasonCode = protocol.ReasonNoResult
		rec.Message = "the step " + exitText(out.state) + " without a result; " + out.resultRule()
		rec.Diagnosis = noResultDiagnosis(rec.Message, out.stderrTail)
	}
}

// protocolError sets the verdict for the first protocol error.
func (at *attempt) protocolError(p *events.ProtocolError, out *output) {
	rec := at.rec
	rec.ReasonCode = protocol.ReasonProtocolError
	rec.Message = fmt.Sprintf("%s: %s", out.where(p), p.Cause)
	if n := len(out.summary.Problems) + out.summary.Dropped; n > 1 {
		rec.Message += fmt.Sprintf(" (and %d more protocol errors)", n-1)
	}
	rec.Diagnosis = p.Diagnosis(out.stderrTail.Lines(20))
}

// takeResult checks the result line and lets it give the verdict.
func (at *attempt) takeResult(raw []byte, line int) {
	rec := at.rec
	v := result.Check(raw, result.Options{Request: at.req, OutputsSchema: at.info.OutputsSchema, ArtifactsDir: at.artifactsDir, Artifacts: at.artDir})
	kept := raw
	if v.Line != nil {
		kept = v.Line // what a rule stripped (an atlas_scan finding's message) stays out
	}
	rec.ResultPath = at.path(attemptdir.Result)
	if err := at.out.WriteFile(attemptdir.Result, append(at.maskBytes(kept), '\n'), 0o644); err != nil {
		at.warn("result_not_written", "could not write result.json: "+err.Error())
	}
	rec.Status, rec.ReasonCode, rec.Message = v.Status, v.ReasonCode, v.Message
	rec.Warnings = append(rec.Warnings, v.Warnings...)
	if v.ReasonCode == protocol.ReasonProtocolError {
		rec.ProtocolErrors = append(rec.ProtocolErrors, ProblemRecord{Line: line, Cause: v.Message})
	}
	rec.Outputs, rec.Artifacts, rec.Feedback = v.Outputs, v.Artifacts, v.Feedback
	rec.Effects, rec.EffectsFeedback = v.Effects, v.EffectsFeedback
	rec.Recovery, rec.Phase, rec.RetryAfterMS, rec.Provenance = v.Recovery, v.Phase, v.RetryAfterMS, v.Provenance
	rec.ResetsAt = v.ResetsAt
	rec.Session, rec.Cost = v.Session, v.Cost
}

// noteStop warns when a step that gave its result had to be stopped.
func (at *attempt) noteStop(stop stopCause) {
	switch stop {
	case stopLingered:
		at.warn("lingered_after_result", fmt.Sprintf("the step did not exit within completion_grace_seconds (%s) after its result and was stopped", at.limits.completionGrace))
	case stopTimeout:
		at.warn("timeout_after_result", "time_left_ms ran out after the result; the step was stopped")
	case stopCancelled:
		at.warn("cancelled_after_result", "the attempt was cancelled after the result; the step was stopped")
	}
}

// noteExit warns when a step that gave an ok result then exited with a
// status other than 0 on its own: the result says one thing, the exit
// status another.
func (at *attempt) noteExit(out *output) {
	if at.rec.Status != protocol.StatusOK || out.stop != stopNone || at.rec.ExitCode == nil || *at.rec.ExitCode == 0 {
		return
	}
	how := fmt.Sprintf("exited with status %d", *at.rec.ExitCode)
	if at.rec.Signal != "" {
		how = "was killed by " + at.rec.Signal
	}
	at.warn(WarnExitAfterResult, fmt.Sprintf("the step %s after its ok result; exit 0 once the result is printed", how))
}

// WarnExitAfterResult is the warning code of a step that exited with a
// status other than 0 (or was killed by a signal it did not get from the
// runner) after an ok result.
const WarnExitAfterResult = "exit_after_result"

// recordProcess records how the step's process ended.
func (at *attempt) recordProcess(out *output) {
	if out.killed {
		at.warn("killed", fmt.Sprintf("the step's process group did not stop within %s of SIGTERM and was killed", at.grace))
	}
	if out.forced {
		at.warn("stdout_held_open", fmt.Sprintf("a process outside the step's group kept its stdout or stderr open; reading stopped %s after the group ended", drainDelay))
	}
	if out.state == nil {
		return
	}
	code := out.state.ExitCode()
	at.rec.ExitCode = &code
	if ws, ok := out.state.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		at.rec.Signal = ws.Signal().String()
	}
}

func (at *attempt) recordLogs(out *output) {
	for _, l := range []struct {
		file *LogFile
		w    *events.CappedWriter
		name string
	}{{&at.rec.Logs.Stdout, out.stdout, "stdout"}, {&at.rec.Logs.Stderr, out.stderr, "stderr"}} {
		if l.w == nil {
			continue
		}
		l.file.Bytes, l.file.Total, l.file.Truncated = l.w.Written(), l.w.Total(), l.w.Truncated()
		if l.w.Truncated() {
			at.warn("log_truncated", fmt.Sprintf("%s went past log_cap_bytes (%d bytes of %d kept in %s); the rest was read and discarded", l.name, l.w.Written(), l.w.Total(), l.file.Path))
		}
		if err := l.w.Err(); err != nil {
			at.warn("log_write_failed", err.Error())
		}
	}
}

func (at *attempt) warn(code, msg string) {
	at.rec.Warnings = append(at.rec.Warnings, protocol.Warning{Code: code, Message: msg})
}

func problemRecords(sum *events.Summary) []ProblemRecord {
	var out []ProblemRecord
	for _, p := range sum.Problems {
		out = append(out, ProblemRecord{Line: p.Line, Cause: p.Cause, Hint: p.Hint})
	}
	return out
}

// exitText says how a process ended: "exited with status 3", "was killed
// by signal killed".
func exitText(state *os.ProcessState) string {
	if state == nil {
		return "ended"
	}
	if ws, ok := state.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return "was killed by " + ws.Signal().String()
	}
	return fmt.Sprintf("exited with status %d", state.ExitCode())
}

func noResultDiagnosis(msg string, tail *events.Tail) string {
	d := msg + ".\nA step prints one result line last on stdout: {\"type\":\"result\",\"protocol_version\":2,\"status\":\"ok\",\"reason_code\":\"...\",\"message\":\"...\"}."
	if t := tail.Lines(20); t != "" {
		d += "\nThe last lines of stderr:\n" + t
	}
	return d
}
