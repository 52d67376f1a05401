package slipway

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strconv"

	"kusaw.dev/step/protocol"
)

// maxActions bounds one attempt's loop, whatever the CLI says.
const maxActions = 2000

// host drives one Run for one attempt. It is used from one goroutine.
type host struct {
	cfg       *Config
	cli       *cli
	agent     *agent
	root      string // the worktree, the Run's --root
	tmp       string // a private 0700 folder for the goal, source and outcome files
	artifacts string // where a person's answer file is suggested
	emit      *emitter
	person    *person // answers pauses on the terminal; nil when not interactive
	runID     string
	resumed   string // the session id this attempt continued, if any
	findings  []Finding
	pause     *Pause // the last pause the agent submitted
	summary   string // the last summarize Outcome's summary
	usage     protocol.Usage
	last      *State // the last state the CLI reported, for an interrupted attempt's recovery
}

// start begins a new Run: the goal (and the source envelope, when there is
// one) in private files, never on argv, removed once the CLI has read them.
func (h *host) start(ctx context.Context, goal string) (*State, error) {
	goalFile, err := h.private("goal-*.txt", []byte(goal))
	if err != nil {
		return nil, err
	}
	defer os.Remove(goalFile)
	argv := []string{"slipway", "run", "--budget", strconv.Itoa(h.cfg.startBudget()), "--json", "--root", h.root}
	if !h.cfg.reviewOn() {
		argv = append(argv, "--no-review")
	}
	argv = append(argv, "--goal-file", goalFile)
	if h.cfg.SourceFile != "" {
		src, err := os.ReadFile(h.cfg.SourceFile)
		if err != nil {
			return nil, fmt.Errorf("%w: source_file: %v%s", ErrConfig, err, hiddenWhy(h.cfg.SourceFile, h.cli.Env))
		}
		srcFile, err := h.private("source-*.json", src)
		if err != nil {
			return nil, err
		}
		defer os.Remove(srcFile)
		argv = append(argv, "--source-file", srcFile)
	}
	r, err := h.cli.call(ctx, argv)
	if err != nil {
		return nil, err
	}
	return h.state(r)
}

// resume continues the Run id from its own status, read as JSON: a Run
// whose typed next is resume is resumed (with --budget when configured);
// a Run a person stopped is resumed only when config.resume_stopped says
// so; any other Run is taken up where it stands, so newer work is never
// voided. The status's journal gives back the question of a pending
// pause and the findings already reported.
func (h *host) resume(ctx context.Context, id string) (*State, error) {
	h.runID, h.resumed = id, id
	st, err := h.status(ctx, []string{"slipway", "status", id, "--root", h.root, "--json"})
	if err != nil || st.Next.Operation != "resume" {
		return st, err
	}
	if st.State == "stopped" && !h.cfg.ResumeStopped {
		return st, nil
	}
	v, ok := st.Next.Variant("resume-ad-hoc")
	if !ok {
		return nil, fmt.Errorf("%w: the resume next has no resume-ad-hoc variant", ErrDefect)
	}
	values := map[string]string{}
	if h.cfg.Budget != nil {
		values["budget"] = strconv.Itoa(*h.cfg.Budget)
	}
	argv, err := v.Resolve(values)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrDefect, err)
	}
	h.emit.progress(fmt.Sprintf("resuming the Slipway Run %s (%s %s)", id, st.State, st.PauseReason))
	r, err := h.cli.call(ctx, argv)
	if err != nil {
		return nil, err
	}
	return h.state(r)
}

// drive runs the loop until the Run ends, pauses or fails, and returns
// the attempt's result.
func (h *host) drive(ctx context.Context, st *State) *protocol.Result {
	for range maxActions {
		h.last = st
		switch {
		case st.State == "active" && st.Action != nil:
			next, err := h.act(ctx, st)
			if err != nil {
				return h.failed(err)
			}
			st = next
		case st.State == "ended":
			return h.ended(st)
		case st.State == "paused":
			next, err := h.ask(ctx, st)
			if err != nil {
				return h.failed(err)
			}
			if next == nil {
				return h.paused(st)
			}
			st = next
		default:
			return h.stopped(st)
		}
	}
	return h.failed(fmt.Errorf("%w: more than %d actions in one attempt", ErrDefect, maxActions))
}

// act carries out one Action: material, agent, check, events, submit.
func (h *host) act(ctx context.Context, st *State) (*State, error) {
	a := st.Action
	h.emit.progress(fmt.Sprintf("%s %s (remaining budget %d)", a.Kind, a.ActionID, a.RemainingBudget))
	envelope, err := h.envelope(ctx, st)
	if err != nil {
		return nil, err
	}
	raw, usage, err := h.agent.ask(ctx, envelope)
	if err != nil {
		return nil, err
	}
	if usage != nil {
		h.addUsage(usage)
	}
	o, err := CheckOutcome(raw, a)
	if err != nil {
		return nil, err
	}
	h.emit.agentAction(a.Kind + ": " + o.Summary)
	h.remember(o)
	return h.submit(ctx, st, raw)
}

// remember keeps what the result will need from an accepted Outcome.
func (h *host) remember(o *Outcome) {
	if o.Review != nil {
		h.findings = append(h.findings, o.Review.Findings...)
	}
	if o.Pause != nil {
		h.pause = o.Pause
	}
	if o.ActionKind == KindSummarize {
		h.summary = o.Summary
	}
}

// envelope is the agent's stdin for the Action: the Action as the CLI
// gave it, and every required section read through the pinned reader.
func (h *host) envelope(ctx context.Context, st *State) ([]byte, error) {
	env := Envelope{Action: st.actionRaw, Material: []MaterialSection{}}
	if req := st.Action.Requirements; req != nil {
		for _, key := range req.RequiredForAction {
			m, err := h.material(ctx, st.Action, key)
			if err != nil {
				return nil, err
			}
			env.Material = append(env.Material, *m)
		}
	}
	return json.Marshal(env)
}

// material reads one section: the reader's exact base_argv, then the
// input's flag and the key as separate elements.
func (h *host) material(ctx context.Context, a *Action, key string) (*MaterialSection, error) {
	rd := a.Requirements.Reader
	if rd.Operation != "read_material" || !contains(rd.Input.Choices, key) {
		return nil, fmt.Errorf("%w: the material reader cannot read section %q", ErrDefect, key)
	}
	argv := append(append([]string(nil), rd.BaseArgv...), rd.Input.Flag, key)
	r, err := h.cli.call(ctx, argv)
	if err != nil {
		return nil, err
	}
	var m Material
	if err := r.decode(&m); err != nil {
		return nil, noRetry(err)
	}
	if m.ActionID != a.ActionID || m.Section.Key != key {
		return nil, fmt.Errorf("%w: material for %s/%s, asked for %s/%s", ErrDefect, m.ActionID, m.Section.Key, a.ActionID, key)
	}
	return &m.Section, nil
}

// noRetry turns a lost response of a read into a defect.
func noRetry(err error) error {
	if errors.Is(err, ErrLostResponse) {
		return fmt.Errorf("%w: %v", ErrDefect, err)
	}
	return err
}

func (h *host) addUsage(u *protocol.Usage) {
	add := func(sum **int64, v *int64) {
		if v != nil {
			*sum = ptr(derefOr(*sum) + *v)
		}
	}
	add(&h.usage.TokensInput, u.TokensInput)
	add(&h.usage.TokensOutput, u.TokensOutput)
	add(&h.usage.TokensCached, u.TokensCached)
	if u.CostUSD != nil {
		c := *u.CostUSD
		if h.usage.CostUSD != nil {
			c += *h.usage.CostUSD
		}
		h.usage.CostUSD, h.usage.CostSource = &c, u.CostSource
	}
	if u.Model != nil {
		h.usage.Model = u.Model
	}
	provider := "slipway-agent"
	if h.agent.provider != "" {
		provider = h.agent.provider
	}
	h.usage.Provider = &provider
	h.emit.usage(h.usage)
}

func ptr[T any](v T) *T { return &v }

func derefOr(p *int64) int64 {
	if p == nil {
		return 0
	}
	return *p
}

// private writes data to a new 0600 regular file in the private folder.
func (h *host) private(pattern string, data []byte) (string, error) {
	f, err := os.CreateTemp(h.tmp, pattern)
	if err != nil {
		return "", err
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(f.Name())
		return "", err
	}
	return f.Name(), nil
}
