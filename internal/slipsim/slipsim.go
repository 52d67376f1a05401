// Package slipsim is a strict simulator of the Slipway CLI's machine
// protocol v2, for tests of hosts such as package slipway. Its command
// (cmd/slipway) is built by the tests and run as a real process.
//
// It is written from the real CLI's observable behaviour (its public
// source read, its binary run), never from a host's types: it imports no
// host package. It implements the CLI surface (run, protocol submit,
// answer, skip, resume and material, status, stop) with contract_version
// 2: a --root must be a Git worktree (else exit 2
// git_repository_required); the journal lives in the worktree's Git
// directory (GITDIR/slipway/runs/ID); Review is decided from the Git
// difference since the Run's start, not from what an agent claims; status
// and stop print text unless --json is given; the end summary is the
// CLI's own report; an environment pause is resumed (next resume), and a
// committed mutation whose response failed points at the text status
// command (variant inspect-run). It rejects what a host must not do:
// a goal on argv or in a file that is not private and regular, flags out
// of the pinned order, unknown or duplicate flags, stale action ids, an
// Outcome that is not strict or not a legal combination, different bytes
// resubmitted for an accepted action, a destructive grant for another
// scope, and resume while the typed next is not resume.
//
// It does not simulate a model, GitHub, source refresh on resume,
// Windows display commands, bounded Git content observation or the
// CLI's exact brief and summary wording.
//
// Environment: SLIPSIM_SCENARIO picks a misbehaviour (see the Scenario
// constants; several may be given, comma-separated), and SLIPSIM_ARGV_LOG
// names a file each invocation's argv is appended to, one JSON array a
// line.
package slipsim

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
)

// The scenarios SLIPSIM_SCENARIO may name.
const (
	// ScenarioCrash: every invocation fails without a structured error
	// (exit 1).
	ScenarioCrash = "crash"
	// ScenarioUsage: `run` reports a usage error (exit 2,
	// goal_required), as the CLI does for a run without a goal.
	ScenarioUsage = "usage-error"
	// ScenarioRuntime: `run` reports a runtime error (exit 3,
	// runtime_error) with a status recovery.
	ScenarioRuntime = "runtime-error"
	// ScenarioLoseResponse: the first submit of a Run commits, then
	// writes a truncated response.
	ScenarioLoseResponse = "lose-submit-response"
	// ScenarioCommitOutputFails: the first Implement submit commits, then
	// reports mutation_committed_output_failed.
	ScenarioCommitOutputFails = "commit-output-fails"
)

// sim is one invocation.
type sim struct {
	args      []string
	stdin     io.Reader
	stdout    io.Writer
	stderr    io.Writer
	scenarios []string
	ws        *workspace // the --root's worktree, once known
}

// Main runs one invocation of the simulated CLI with args (without the
// program name) and returns its exit status.
func Main(args []string, stdin io.Reader, stdout, stderr io.Writer, getenv func(string) string) int {
	if log := getenv("SLIPSIM_ARGV_LOG"); log != "" {
		if err := appendJSONLine(log, args); err != nil {
			fmt.Fprintf(stderr, "slipsim: record argv: %v\n", err)
			return 1
		}
	}
	s := &sim{args: args, stdin: stdin, stdout: stdout, stderr: stderr}
	if sc := getenv("SLIPSIM_SCENARIO"); sc != "" {
		s.scenarios = strings.Split(sc, ",")
	}
	if s.has(ScenarioCrash) {
		fmt.Fprintln(stderr, "panic: simulated defect")
		return 1
	}
	err := s.dispatch()
	if err == nil {
		return 0
	}
	return s.fail(err)
}

func (s *sim) has(scenario string) bool {
	for _, x := range s.scenarios {
		if x == scenario {
			return true
		}
	}
	return false
}

// dispatch runs the subcommand.
func (s *sim) dispatch() error {
	a := s.args
	switch {
	case len(a) >= 1 && a[0] == "run":
		return s.cmdRun(a[1:])
	case len(a) >= 1 && a[0] == "status":
		return s.cmdStatus(a[1:])
	case len(a) >= 1 && a[0] == "stop":
		return s.cmdStop(a[1:])
	case len(a) >= 2 && a[0] == "protocol":
		return s.protocol(a[1], a[2:])
	}
	return usage("unknown_command", "unknown command %q", a)
}

func (s *sim) protocol(op string, args []string) error {
	switch op {
	case "submit":
		return s.cmdSubmit(args)
	case "answer":
		return s.cmdAnswer(args)
	case "skip":
		return s.cmdSkip(args)
	case "resume":
		return s.cmdResume(args)
	case "material":
		return s.cmdMaterial(args)
	}
	return usage("unknown_command", "unknown protocol operation %q", op)
}

// cliError is an error the CLI reports with a structured body on stderr.
type cliError struct {
	code    string
	message string
	exit    int
	next    map[string]any // nil means operation none
	details any
}

// Error gives the code and the message.
func (e *cliError) Error() string { return e.code + ": " + e.message }

func usage(code, format string, args ...any) error {
	return &cliError{code: code, message: fmt.Sprintf(format, args...), exit: 2}
}

func runtime(code string, next map[string]any, format string, args ...any) error {
	return &cliError{code: code, message: fmt.Sprintf(format, args...), exit: 3, next: next}
}

// fail writes err's structured body on stderr and returns its status; an
// error that is not a *cliError is a defect: exit 1, no JSON.
func (s *sim) fail(err error) int {
	ce, ok := err.(*cliError)
	if !ok {
		fmt.Fprintf(s.stderr, "slipsim: %v\n", err)
		return 1
	}
	next := ce.next
	if next == nil {
		next = nextOf(s.wsID(), "none")
	}
	body := map[string]any{"contract_version": 2, "code": ce.code, "message": ce.message, "exit_code": ce.exit, "next": next}
	if ce.details != nil {
		body["details"] = ce.details
	}
	data, _ := json.Marshal(body)
	fmt.Fprintf(s.stderr, "%s\n", data)
	return ce.exit
}

// wsID is the workspace identity for an error's next: the worktree's
// when known, else the working directory's.
func (s *sim) wsID() string {
	if s.ws != nil {
		return workspaceID(s.ws.root, s.ws.gitDir)
	}
	wd, _ := os.Getwd()
	return workspaceID(wd, "")
}

// text writes a person's text and the next as choices, as the CLI does
// without --json.
func (s *sim) text(head string, next map[string]any) error {
	var b strings.Builder
	b.WriteString(head)
	writeNextText(&b, next)
	_, err := io.WriteString(s.stdout, b.String())
	return err
}

// ok writes a success body on stdout.
func (s *sim) ok(v any) error {
	data, err := json.Marshal(v)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(s.stdout, "%s\n", data)
	return err
}

func appendJSONLine(path string, v any) error {
	data, err := json.Marshal(v)
	if err != nil {
		return err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return err
	}
	_, err = f.Write(append(data, '\n'))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}
