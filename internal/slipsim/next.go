package slipsim

import (
	"fmt"
	"io"
	"strings"
)

// workspaceID is the simulated workspace identity of the worktree.
func (r *run) workspaceID() string { return workspaceID(r.Root, r.GitDir) }

func workspaceID(root, gitDir string) string {
	return digest([]byte("workspace\x00" + root + "\x00" + gitDir))
}

func nextOf(wsID, op string, variants ...map[string]any) map[string]any {
	if variants == nil {
		variants = []map[string]any{}
	}
	return map[string]any{"operation": op, "workspace_identity": wsID, "variants": variants}
}

func variant(id string, argv []string, inputs ...map[string]any) map[string]any {
	if inputs == nil {
		inputs = []map[string]any{}
	}
	return map[string]any{"id": id, "base_argv": argv, "inputs": inputs}
}

func input(name, typ, flag string, required bool) map[string]any {
	return map[string]any{"name": name, "type": typ, "flag": flag, "required": required}
}

// actionArgv is the nine-element prefix of submit, answer and skip.
func (r *run) actionArgv(op string) []string {
	return []string{"slipway", "protocol", op, "--run", r.ID, "--action", r.Action.ActionID, "--root", r.Root}
}

func (r *run) resumeVariant() map[string]any {
	return variant("resume-ad-hoc", []string{"slipway", "protocol", "resume", r.ID, "--root", r.Root},
		input("budget", "string", "--budget", false))
}

// next is the Run's typed next operation. An environment pause is
// resumed, not answered: there is nothing to tell the CLI, only a
// world to fix.
func (r *run) next() map[string]any {
	ws := r.workspaceID()
	switch {
	case r.State == "active":
		return nextOf(ws, "action",
			variant("submit-outcome-file", r.actionArgv("submit"), input("outcome_file", "path", "--outcome-file", true)),
			variant("submit-outcome-stdin", append(r.actionArgv("submit"), "--outcome-stdin")),
			variant("skip-action", r.actionArgv("skip")))
	case r.State == "paused" && r.PauseReason == pauseDestructive:
		confirm := append(r.actionArgv("answer"), "--confirm-destructive", "--scope-sha256", r.Pending.ScopeSHA256)
		return nextOf(ws, "answer",
			variant("confirm-destructive", confirm, input("text_file", "path", "--text-file", false)),
			variant("decline-or-feedback", r.actionArgv("answer"), input("text_file", "path", "--text-file", true)),
			variant("skip-action", r.actionArgv("skip")))
	case r.State == "paused" && r.PauseReason == pauseDecision:
		return nextOf(ws, "answer",
			variant("answer-decision", r.actionArgv("answer"), input("text_file", "path", "--text-file", true)),
			variant("skip-action", r.actionArgv("skip")))
	case r.State == "paused" && r.PauseReason == pauseEnvironment && r.Action != nil:
		return nextOf(ws, "resume", r.resumeVariant(), variant("skip-action", r.actionArgv("skip")))
	case r.State == "paused" || r.State == "stopped":
		return nextOf(ws, "resume", r.resumeVariant())
	}
	return nextOf(ws, "none")
}

// stateBody is a mutation's success response.
func (r *run) stateBody(extra map[string]any) map[string]any {
	body := map[string]any{"contract_version": 2, "run_id": r.ID, "state": r.State, "next": r.next()}
	if r.PauseReason != "" {
		body["pause_reason"] = r.PauseReason
	}
	if r.Summary != "" {
		body["summary"] = r.Summary
	}
	if r.Action != nil && (r.State == "active" || r.State == "paused") {
		body["action"] = r.Action
	}
	for k, v := range extra {
		body[k] = v
	}
	return body
}

// inspectRun is the CLI's targeted, read-only recovery for one Run: the
// text status command, variant id inspect-run, without --json.
func (r *run) inspectRun() map[string]any {
	return nextOf(r.workspaceID(), "command", variant("inspect-run", []string{"slipway", "status", r.ID, "--root", r.Root}))
}

// statusBody is `slipway status RUN --root ROOT --json`.
func (r *run) statusBody() map[string]any {
	body := map[string]any{
		"contract_version": 2, "id": r.ID, "goal": r.Goal, "workspace": r.Root,
		"workspace_identity": map[string]any{"version": 1, "worktree_root": r.Root, "git_dir": r.GitDir,
			"git_common_dir": r.GitDir, "id": r.workspaceID()},
		"workspace_foreign": false, "state": r.State, "review_enabled": r.Review, "review_pending": r.ReviewPending,
		"initial_budget": r.InitialBudget, "remaining_budget": r.Remaining, "initial_git": gitBody(r.Initial),
		"current_git": gitBody(r.Current), "final_git_observed": r.FinalObserved, "actions": r.Records,
		"created_at": r.CreatedAt, "updated_at": r.UpdatedAt, "next": r.next(),
	}
	if r.PauseReason != "" {
		body["pause_reason"] = r.PauseReason
	}
	if r.Summary != "" {
		body["summary"] = r.Summary
	}
	if r.Action != nil && (r.State == "active" || r.State == "paused") {
		body["current_action"] = r.Action
	}
	if r.Pending != nil {
		body["pending_destructive_request"] = r.Pending
	}
	if r.LastResume != nil {
		body["last_resume_result"] = r.LastResume
	}
	return body
}

// gitBody is an observation in the status's shape.
func gitBody(o *observation) map[string]any {
	zero := digest(nil)
	return map[string]any{"version": 1, "head": o.Head, "index_fingerprint": zero, "status_fingerprint": o.Snapshot,
		"snapshot_hash": o.Snapshot, "path_count": len(o.Dirty), "path_fingerprint": zero, "details_truncated": false,
		"content_observation_complete": true, "content_bytes_hashed": 0, "content_byte_limit": 64 << 20,
		"content_byte_limit_exceeded": false, "content_deadline_exceeded": false,
		"dirty_files": o.Dirty, "path_observations": []any{}}
}

// writeStatusText is `slipway status RUN --root ROOT` without --json: the
// text a person reads, which no host can parse as JSON.
func (r *run) writeStatusText(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "Run: %s\nState: %s\nGoal: %s\nBudget remaining: %d\n", r.ID, r.State, r.Goal, r.Remaining)
	if r.PauseReason != "" {
		fmt.Fprintf(&b, "Pause reason: %s\n", r.PauseReason)
	}
	if q := r.pendingQuestion(); q != "" {
		fmt.Fprintf(&b, "Pending question: %s\n", q)
	}
	if r.Action != nil && (r.State == "active" || r.State == "paused") {
		fmt.Fprintf(&b, "Current action: %s (%s)\n", r.Action.ActionID, r.Action.Kind)
	}
	b.WriteString(r.Summary)
	writeNextText(&b, r.next())
	_, err := io.WriteString(w, b.String())
	return err
}

// writeNextText renders a next as "Next choices:" lines, as the CLI does.
func writeNextText(b *strings.Builder, next map[string]any) {
	variants := next["variants"].([]map[string]any)
	if next["operation"] == "none" {
		return
	}
	b.WriteString("Next choices:\n")
	for _, v := range variants {
		var missing []string
		for _, in := range v["inputs"].([]map[string]any) {
			if in["required"] == true {
				missing = append(missing, fmt.Sprintf("%s (%s via %s)", in["name"], in["type"], in["flag"]))
			}
		}
		if len(missing) > 0 {
			fmt.Fprintf(b, "- %s: requires %s\n", v["id"], strings.Join(missing, ", "))
			continue
		}
		fmt.Fprintf(b, "- %s: %s\n", v["id"], strings.Join(v["base_argv"].([]string), " "))
	}
}

// pendingQuestion is the question of the paused current Action, if any.
func (r *run) pendingQuestion() string {
	if r.Action == nil {
		return ""
	}
	for i := len(r.Records) - 1; i >= 0; i-- {
		rec := r.Records[i]
		if rec.Action.ActionID != r.Action.ActionID || rec.Outcome == nil {
			continue
		}
		var o outcomeBody
		if err := strictObject(rec.Outcome, &o); err == nil && o.Pause != nil {
			return strings.Join(strings.Fields(o.Pause.Question), " ")
		}
	}
	return ""
}
