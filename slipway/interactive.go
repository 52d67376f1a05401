package slipway

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/go-json-experiment/json"
)

// interactiveHandshakeLine is the interactive variant's answer to
// KUSAW_HANDSHAKE=1: the same step, with "interactive": true and a
// continue_hint.
var interactiveHandshakeLine = strings.Replace(handshakeLine, `"interactive":false,`,
	`"interactive":true,"continue_hint":"Answer the Slipway Run's questions here; end of input leaves them for later.",`, 1)

// MainInteractive is the interactive variant of [Main] (`kusaw-step slipway
// --interactive`): with KUSAW_HANDSHAKE=1 in env it prints its handshake on
// ttyOut; otherwise it reads the request from the file KUSAW_REQUEST names,
// appends its events to KUSAW_EVENTS and writes the result to KUSAW_RESULT,
// and asks the person on its terminal (ttyIn, ttyOut) when the Run pauses:
// a decision is answered with the line they type; a destructive
// confirmation is granted only when they type exactly its scope digest.
// End of input leaves the pause to the result, as [Main] does.
func MainInteractive(ctx context.Context, ttyIn io.Reader, ttyOut, stderr io.Writer, env []string) error {
	if lookupEnv(env, "KUSAW_HANDSHAKE") == "1" {
		_, err := io.WriteString(ttyOut, interactiveHandshakeLine+"\n")
		return err
	}
	req, err := os.Open(lookupEnv(env, "KUSAW_REQUEST"))
	if err != nil {
		return err
	}
	defer req.Close()
	events, err := os.OpenFile(lookupEnv(env, "KUSAW_EVENTS"), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return err
	}
	defer events.Close()
	em := &emitter{w: bufio.NewWriter(events), stderr: stderr}
	p := &person{in: bufio.NewReader(ttyIn), out: ttyOut}
	res := runRequest(ctx, req, env, em, p)
	line, err := json.Marshal(res)
	if err != nil {
		return err
	}
	if err := os.WriteFile(lookupEnv(env, "KUSAW_RESULT"), append(line, '\n'), 0o644); err != nil {
		return err
	}
	return em.err
}

// person is the one who answers pauses on the step's terminal.
type person struct {
	in  *bufio.Reader
	out io.Writer
	eof bool // the terminal's input ended: no more answers
}

// say writes lines to the terminal, each ending in CR LF.
func (p *person) say(lines ...string) {
	for _, l := range lines {
		io.WriteString(p.out, l+"\r\n")
	}
}

// line reads one line the person types, without its line ending; ok is
// false at the end of input (a partial last line is no answer either).
func (p *person) line(prompt string) (string, bool) {
	if p.eof {
		return "", false
	}
	io.WriteString(p.out, prompt)
	s, err := p.in.ReadString('\n')
	if err != nil {
		p.eof = true
		p.say("")
		return "", false
	}
	return strings.TrimRight(s, "\r\n"), true
}

// ask puts a pause to the person. It returns the Run's new state once
// the pause is answered, or nil when it stays a pause for the result.
func (h *host) ask(ctx context.Context, st *State) (*State, error) {
	if h.person == nil || h.pause == nil || h.pause.Reason != st.PauseReason || st.Next.Operation != "answer" {
		return nil, nil
	}
	switch st.PauseReason {
	case PauseDecision:
		return h.askDecision(ctx, st)
	case PauseDestructive:
		return h.askDestructive(ctx, st)
	}
	return nil, nil
}

// askDecision shows the question and answers it with the line typed,
// through a private 0600 file and the answer-decision variant.
func (h *host) askDecision(ctx context.Context, st *State) (*State, error) {
	v, ok := st.Next.Variant("answer-decision")
	if !ok {
		return nil, nil
	}
	p := h.person
	p.say("", "The Slipway Run "+h.runID+" needs a decision:", "  "+h.pause.Question)
	answer, ok := p.line("Your answer (end of input leaves it for later): ")
	if !ok || strings.TrimSpace(answer) == "" {
		p.say("No answer: the Run stays paused.")
		return nil, nil
	}
	file, err := h.private("answer-*.txt", []byte(answer))
	if err != nil {
		return nil, err
	}
	defer os.Remove(file)
	argv, err := v.Resolve(map[string]string{"text_file": file})
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrDefect, err)
	}
	h.emit.progress("answered the decision on the terminal")
	return h.answer(ctx, st, argv)
}

// askDestructive shows the targets, impact and scope digest, and grants
// the confirmation only when the person types exactly that digest. The
// confirm-destructive variant must carry the same digest in its argv.
func (h *host) askDestructive(ctx context.Context, st *State) (*State, error) {
	d := h.pause.DestructiveRequest
	v, ok := st.Next.Variant("confirm-destructive")
	if d == nil || !ok || !slices.Contains(v.BaseArgv, d.ScopeSHA256) {
		return nil, nil
	}
	argv, err := v.Resolve(map[string]string{})
	if err != nil {
		return nil, nil
	}
	p := h.person
	p.say("", "The Slipway Run "+h.runID+" asks to make a destructive change:", "  "+h.pause.Question)
	for _, t := range d.Targets {
		p.say("  target " + t.Kind + ": " + t.Value)
	}
	p.say("  impact: "+d.Impact, "  scope:  "+d.ScopeSHA256,
		"To grant exactly this scope, type the scope digest; anything else declines for now.")
	typed, ok := p.line("Scope digest: ")
	if !ok || typed != d.ScopeSHA256 {
		p.say("Not granted: the Run stays paused.")
		return nil, nil
	}
	h.emit.progress("destructive scope " + d.ScopeSHA256 + " granted on the terminal")
	return h.answer(ctx, st, argv)
}

// answer runs an answer argv. A committed answer whose response was lost
// is never replayed: the targeted status recovery says where the Run is.
func (h *host) answer(ctx context.Context, st *State, argv []string) (*State, error) {
	r, err := h.cli.call(ctx, argv)
	if err != nil {
		return nil, err
	}
	next, err := h.state(r)
	var ce *CLIError
	if errors.As(err, &ce) && ce.Code == CodeMutationCommittedOutputFailed && ce.ExitCode == 3 {
		id := ""
		if st.Action != nil {
			id = st.Action.ActionID
		}
		return h.recoverCommitted(ctx, ce, id)
	}
	if errors.Is(err, ErrLostResponse) {
		return nil, fmt.Errorf("%w: %v", ErrDefect, err)
	}
	return next, err
}
