package slipway_test

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"kusaw.dev/step/slipway"
)

// fakeAgents are the agents the tests name in config.agent; each answers
// one Action envelope on stdin with an Outcome on stdout.
var fakeAgents = map[string]func(env *slipway.Envelope, a *slipway.Action, o *slipway.Outcome) error{
	"happy":       func(*slipway.Envelope, *slipway.Action, *slipway.Outcome) error { return nil },
	"decision":    decision,
	"destructive": destructive,
	"illegal":     illegal,
	"issue":       issue,
	"environment": environment,
	"hang":        hang,
	"crash": func(*slipway.Envelope, *slipway.Action, *slipway.Outcome) error {
		return fmt.Errorf("the model is unreachable")
	},
}

func fakeAgent(name string) int {
	behave, ok := fakeAgents[name]
	if !ok {
		fmt.Fprintf(os.Stderr, "no fake agent %q\n", name)
		return 2
	}
	data, err := io.ReadAll(os.Stdin)
	var env slipway.Envelope
	var a slipway.Action
	if err == nil {
		err = json.Unmarshal(data, &env)
	}
	if err == nil {
		err = json.Unmarshal(env.Action, &a)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "fake agent: read the envelope: %v\n", err)
		return 1
	}
	o := plainOutcome(&a)
	if err := behave(&env, &a, o); err != nil {
		fmt.Fprintf(os.Stderr, "fake agent %s: %v\n", name, err)
		return 1
	}
	if path := os.Getenv(slipway.UsageFileEnv); path != "" {
		os.WriteFile(path, []byte(`{"model":"fake","tokens_input":10,"tokens_output":5,"cost_usd":0.01}`), 0o600)
	}
	out, _ := json.Marshal(o)
	os.Stdout.Write(out)
	return 0
}

// plainOutcome is a legal Outcome that walks orient → clarify →
// implement (which writes greet.go, so the CLI sees a change and asks for
// Review) → review → summarize; an Orient after earlier outcomes (a
// resumed or answered Run) suggests nothing, so the CLI picks what is
// due: Review of the change, then Summarize.
func plainOutcome(a *slipway.Action) *slipway.Outcome {
	o := &slipway.Outcome{ContractVersion: 2, ActionID: a.ActionID, ActionKind: a.Kind, Status: "completed",
		Summary: "did " + a.Kind, Observations: []string{}, KnownIssues: []string{}, SuggestedActions: []slipway.Suggestion{}}
	switch a.Kind {
	case slipway.KindOrient:
		if firstOrient(a) {
			o.SuggestedActions = []slipway.Suggestion{{Kind: "clarify", Brief: "settle the wording"}}
		}
	case slipway.KindClarify:
		o.SuggestedActions = []slipway.Suggestion{{Kind: "implement", Brief: "write it"}}
	case slipway.KindImplement:
		writeGreeting()
		o.Implementation = &slipway.Implementation{Result: "applied", FilesChanged: []string{"greet.go"},
			Activities:    []slipway.Activity{{Kind: "test", Command: "go test ./...", ExitCode: 0, Summary: "ok"}},
			Uncertainties: []string{}, Attempts: 1}
	case slipway.KindReview:
		o.Review = &slipway.Review{Result: "findings_reported", Uncertainties: []string{},
			Findings: []slipway.Finding{{Location: "greet.go:3", Summary: "typo", Detail: "helo"}}}
	case slipway.KindSummarize:
		o.Summary = "greeting added"
	}
	return o
}

// writeGreeting is the Implement's edit, in the worktree (its working
// directory) and only in a Git worktree: never in a source folder.
func writeGreeting() {
	if _, err := os.Stat(".git"); err != nil {
		return
	}
	if err := os.WriteFile("greet.go", []byte("package greet\n\nconst Hello = \"helo\"\n"), 0o644); err != nil {
		panic(err)
	}
}

// firstOrient reports whether a is the Run's first Orient: nothing was
// reported or decided before it.
func firstOrient(a *slipway.Action) bool {
	return strings.Contains(a.Context, "Recent outcome:\n(none)") && strings.Contains(a.Context, "Decisions:\n(none)")
}

// decision pauses the first Orient for a person's decision; once the
// answer is in the Action's context it carries on.
func decision(_ *slipway.Envelope, a *slipway.Action, o *slipway.Outcome) error {
	if a.Kind == slipway.KindOrient && !strings.Contains(a.Context, "English") && firstOrient(a) {
		o.Status, o.SuggestedActions = "needs_input", []slipway.Suggestion{}
		o.Pause = &slipway.Pause{Reason: slipway.PauseDecision, Question: "English or French?"}
	}
	return nil
}

// destructive asks to delete a folder at the first Implement.
func destructive(_ *slipway.Envelope, a *slipway.Action, o *slipway.Outcome) error {
	if a.Kind == slipway.KindImplement && a.DestructiveAuthorization == nil {
		req := &slipway.DestructiveRequest{RequestID: "6f1c2d3e-4a5b-4c6d-8e7f-8091a2b3c4d5",
			Targets: []slipway.Target{{Kind: "path", Value: "legacy/"}}, Impact: "deletes legacy/"}
		req.ScopeSHA256 = slipway.ScopeSHA256(req)
		o.Status, o.Implementation = "needs_input", nil
		o.Pause = &slipway.Pause{Reason: slipway.PauseDestructive, Question: "May I delete legacy/?", DestructiveRequest: req}
	}
	return nil
}

// environment pauses the first Orient while the environment is not
// ready (SLIPWAY_TEST_HANG_UNTIL names a file that does not exist).
func environment(_ *slipway.Envelope, a *slipway.Action, o *slipway.Outcome) error {
	_, err := os.Stat(os.Getenv("SLIPWAY_TEST_HANG_UNTIL"))
	if a.Kind == slipway.KindOrient && firstOrient(a) && err != nil {
		o.Status, o.SuggestedActions = "needs_input", []slipway.Suggestion{}
		o.Pause = &slipway.Pause{Reason: slipway.PauseEnvironment, Question: "Docker is not running; start it?"}
	}
	return nil
}

// hang does not answer an Implement (until the runner stops it) while
// SLIPWAY_TEST_HANG_UNTIL names a file that does not exist; every other
// Action, and every Action once the file exists, is answered as happy
// does.
func hang(_ *slipway.Envelope, a *slipway.Action, _ *slipway.Outcome) error {
	until := os.Getenv("SLIPWAY_TEST_HANG_UNTIL")
	if a.Kind != slipway.KindImplement || until == "" {
		return nil
	}
	if _, err := os.Stat(until); err != nil {
		time.Sleep(time.Hour)
	}
	return nil
}

// illegal reports an implementation branch for an Orient.
func illegal(_ *slipway.Envelope, a *slipway.Action, o *slipway.Outcome) error {
	if a.Kind == slipway.KindOrient {
		o.Implementation = &slipway.Implementation{Result: "applied", FilesChanged: []string{}, Activities: []slipway.Activity{},
			Uncertainties: []string{}, Attempts: 1}
	}
	return nil
}

// issue requires every section's text, in order, with each Action.
func issue(env *slipway.Envelope, a *slipway.Action, _ *slipway.Outcome) error {
	if a.Requirements == nil || len(env.Material) != len(a.Requirements.RequiredForAction) {
		return fmt.Errorf("%d sections of material for %+v", len(env.Material), a.Requirements)
	}
	for i, m := range env.Material {
		if m.Key != a.Requirements.RequiredForAction[i] || m.Markdown == "" {
			return fmt.Errorf("material %d is %q, want %q with text", i, m.Key, a.Requirements.RequiredForAction[i])
		}
	}
	return nil
}
