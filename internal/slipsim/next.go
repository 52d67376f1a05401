package slipsim

import (
	"encoding/json"

	"kusaw.dev/step/slipway"
)

// workspaceID is the simulated workspace identity of root.
func workspaceID(root string) string { return digest([]byte("workspace\x00" + root)) }

func nextOf(root, op string, variants ...map[string]any) map[string]any {
	if variants == nil {
		variants = []map[string]any{}
	}
	return map[string]any{"operation": op, "workspace_identity": workspaceID(root), "variants": variants}
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

// next is the Run's typed next operation.
func (r *run) next() map[string]any {
	switch {
	case r.State == "active":
		return nextOf(r.Root, "action",
			variant("submit-outcome-file", r.actionArgv("submit"), input("outcome_file", "path", "--outcome-file", true)),
			variant("submit-outcome-stdin", append(r.actionArgv("submit"), "--outcome-stdin")),
			variant("skip-action", r.actionArgv("skip")))
	case r.State == "paused" && r.PauseReason == slipway.PauseDestructive:
		confirm := append(r.actionArgv("answer"), "--confirm-destructive", "--scope-sha256", r.Pending.ScopeSHA256)
		return nextOf(r.Root, "answer",
			variant("confirm-destructive", confirm, input("text_file", "path", "--text-file", false)),
			variant("decline-or-feedback", r.actionArgv("answer"), input("text_file", "path", "--text-file", true)),
			variant("skip-action", r.actionArgv("skip")))
	case r.State == "paused" && r.PauseReason != slipway.PauseBudgetExhausted:
		return nextOf(r.Root, "answer",
			variant("answer-decision", r.actionArgv("answer"), input("text_file", "path", "--text-file", true)),
			variant("skip-action", r.actionArgv("skip")))
	case r.State == "paused" || r.State == "stopped":
		return nextOf(r.Root, "resume",
			variant("resume-ad-hoc", []string{"slipway", "protocol", "resume", r.ID, "--root", r.Root},
				input("budget", "string", "--budget", false)))
	}
	return nextOf(r.Root, "none")
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
	if r.Action != nil {
		body["action"] = r.Action
	}
	for k, v := range extra {
		body[k] = v
	}
	return body
}

// statusCommand is the targeted, read-only status recovery of the Run.
func (r *run) statusCommand() map[string]any {
	return nextOf(r.Root, "command", variant("status", []string{"slipway", "status", r.ID, "--root", r.Root}))
}

// statusBody is `slipway status RUN --root ROOT`.
func (r *run) statusBody() map[string]any {
	git := gitObservation()
	body := map[string]any{
		"contract_version": 2, "id": r.ID, "goal": r.Goal, "workspace": r.Root,
		"workspace_identity": map[string]any{"version": 1, "worktree_root": r.Root, "git_dir": r.Root + "/.git",
			"git_common_dir": r.Root + "/.git", "id": workspaceID(r.Root)},
		"workspace_foreign": false, "state": r.State, "review_enabled": r.Review, "review_pending": r.ReviewPending,
		"initial_budget": r.InitialBudget, "remaining_budget": r.Remaining, "initial_git": git, "current_git": git,
		"final_git_observed": r.State == "ended", "actions": r.Records, "created_at": r.CreatedAt,
		"updated_at": r.UpdatedAt, "next": r.next(),
	}
	if r.PauseReason != "" {
		body["pause_reason"] = r.PauseReason
	}
	if r.Summary != "" {
		body["summary"] = r.Summary
	}
	if r.Action != nil {
		body["current_action"] = r.Action
	}
	if r.Pending != nil {
		body["pending_destructive_request"] = r.Pending
	}
	return body
}

// gitObservation is a constant observation: the simulator does not look
// at Git.
func gitObservation() map[string]any {
	zero := digest(nil)
	return map[string]any{"version": 1, "head": "", "index_fingerprint": zero, "status_fingerprint": zero,
		"snapshot_hash": zero, "path_count": 0, "path_fingerprint": zero, "details_truncated": false,
		"content_observation_complete": true, "content_bytes_hashed": 0, "content_byte_limit": 1 << 20,
		"content_byte_limit_exceeded": false, "content_deadline_exceeded": false,
		"dirty_files": []string{}, "path_observations": []any{}}
}

// record appends an action record (the action and, if any, its outcome).
func (r *run) record(outcome json.RawMessage, sha string, skipped bool) {
	rec := map[string]any{"action": r.Action}
	if outcome != nil {
		rec["outcome"], rec["outcome_payload_sha256"] = outcome, sha
	}
	if skipped {
		rec["skipped"] = true
	}
	data, _ := json.Marshal(rec)
	r.Records = append(r.Records, data)
}
