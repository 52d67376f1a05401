package slipsim

import (
	"strconv"
)

// cmdRun starts a Run: slipway run --budget N --json --root ROOT
// [--no-review] --goal-file F [--source-file S]. A goal on argv or on
// stdin is refused: hosts must use a private goal file.
func (s *sim) cmdRun(args []string) error {
	f, err := parseFlags(args, []string{"--budget", "--root", "--goal-file", "--source-file"},
		[]string{"--json", "--no-review", "--goal-stdin"})
	if err != nil {
		return err
	}
	if len(f.pos) > 0 || f.bools["--goal-stdin"] {
		return usage("goal_not_in_file", "a host must pass the goal with --goal-file, never on argv or stdin")
	}
	v, err := f.need("--budget", "--root")
	if err != nil {
		return err
	}
	budget, err := parseBudget(v[0])
	if err != nil {
		return err
	}
	if !f.bools["--json"] {
		return usage("json_required", "a host must ask for --json")
	}
	if err := s.checkRoot(v[1]); err != nil {
		return err
	}
	if s.has(ScenarioUsage) {
		return usage("goal_required", "exactly one positional goal, goal-file, or goal-stdin input is required")
	}
	if s.has(ScenarioRuntime) {
		return runtime("runtime_error", nil, "simulated runtime failure")
	}
	goalFile, ok := f.vals["--goal-file"]
	if !ok {
		return usage("goal_required", "exactly one positional goal, goal-file, or goal-stdin input is required")
	}
	goal, err := readPrivate("--goal-file", goalFile, 1<<20, true)
	if err != nil {
		return err
	}
	initial, err := s.ws.observe()
	if err != nil {
		return runtime("git_observation_failed", nil, "%v", err)
	}
	r := &run{ID: newID(), Root: s.ws.root, GitDir: s.ws.gitDir, Goal: string(goal), Review: !f.bools["--no-review"],
		InitialBudget: budget, Remaining: budget, Accepted: map[string]string{}, Responses: map[string][]byte{},
		Initial: initial, Current: initial, Queue: []suggestion{}, Records: []record{}, CreatedAt: now()}
	if src, ok := f.vals["--source-file"]; ok {
		data, err := readPrivate("--source-file", src, 16<<20, true)
		if err != nil {
			return err
		}
		if err := s.importSource(r, data, v[0]); err != nil {
			return err
		}
	}
	if err := create(s.ws, r); err != nil {
		return err
	}
	defer r.release()
	r.issue(kindOrient, briefOrient, nil)
	if err := r.save("start", map[string]any{"budget": budget}); err != nil {
		return err
	}
	return s.ok(r.stateBody(nil))
}

// actionFlags parses --run --action --root and loads the Run.
func (s *sim) actionFlags(args []string, valued, boolean []string) (*run, *flags, error) {
	f, err := parseFlags(args, append([]string{"--run", "--action", "--root"}, valued...), boolean)
	if err != nil {
		return nil, nil, err
	}
	if len(f.pos) > 0 {
		return nil, nil, usage("unexpected_argument", "unexpected argument %q", f.pos[0])
	}
	v, err := f.need("--run", "--action", "--root")
	if err != nil {
		return nil, nil, err
	}
	if err := s.checkRoot(v[2]); err != nil {
		return nil, nil, err
	}
	r, err := load(s.ws, v[0])
	return r, f, err
}

// current requires id to be the Run's current Action, in one of states.
func (r *run) current(id string, states ...string) error {
	for _, st := range states {
		if r.State == st && r.Action != nil && r.Action.ActionID == id {
			return nil
		}
	}
	return runtime("stale_action", r.next(), "action %q is not the current %v action of run %s (state %s)", id, states, r.ID, r.State)
}

// cmdSkip voids the current Action and moves on.
func (s *sim) cmdSkip(args []string) error {
	r, f, err := s.actionFlags(args, nil, nil)
	if err != nil {
		return err
	}
	defer r.release()
	if err := r.current(f.vals["--action"], "active", "paused"); err != nil {
		return err
	}
	r.skipped(s.ws)
	if err := r.save("skip", f.vals["--action"]); err != nil {
		return err
	}
	return s.ok(r.stateBody(nil))
}

// cmdStatus is the read-only status of one Run: slipway status RUN --root
// ROOT prints text; only --json prints the machine body.
func (s *sim) cmdStatus(args []string) error {
	r, f, err := s.openRun("status", args, nil, []string{"--json"})
	if err != nil {
		return err
	}
	r.release()
	if !f.bools["--json"] {
		return r.writeStatusText(s.stdout)
	}
	return s.ok(r.statusBody())
}

// cmdStop stops a Run: slipway stop RUN --root ROOT [--json].
func (s *sim) cmdStop(args []string) error {
	r, f, err := s.openRun("stop", args, nil, []string{"--json"})
	if err != nil {
		return err
	}
	defer r.release()
	if r.State != "active" && r.State != "paused" {
		return runtime("run_not_stoppable", r.next(), "run %s is %s", r.ID, r.State)
	}
	r.voidCurrent()
	r.State, r.PauseReason, r.Pending = "stopped", "", nil
	if err := r.save("stop", nil); err != nil {
		return err
	}
	if !f.bools["--json"] {
		return s.text("Stopped run "+r.ID+".\n", r.next())
	}
	return s.ok(r.stateBody(nil))
}

// parseBudget reads a --budget value: 1 to 1000, in canonical form.
func parseBudget(v string) (int, error) {
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 || n > 1000 || strconv.Itoa(n) != v {
		return 0, usage("invalid_budget", "--budget %q: want 1 to 1000", v)
	}
	return n, nil
}

// openRun parses "RUN --root ROOT" and the command's other flags, and
// loads the Run; the caller releases it.
func (s *sim) openRun(what string, args, valued, boolean []string) (*run, *flags, error) {
	f, err := parseFlags(args, append([]string{"--root"}, valued...), boolean)
	if err != nil {
		return nil, nil, err
	}
	v, err := f.need("--root")
	if err != nil || len(f.pos) != 1 {
		return nil, nil, usage("run_required", "%s needs RUN and --root", what)
	}
	if err := s.checkRoot(v[0]); err != nil {
		return nil, nil, err
	}
	r, err := load(s.ws, f.pos[0])
	if err != nil {
		return nil, nil, err
	}
	return r, f, nil
}
