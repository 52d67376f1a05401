// Package slipway is the slipway step kind: a conforming Kusaw step that
// hosts a Slipway Run over Slipway's machine protocol v2, calling an agent
// command (a model) for each Action.
//
// To host a Run, [Main]:
//  1. answers KUSAW_HANDSHAKE=1 with its handshake, or reads the v2 request;
//  2. writes the goal (the task spec, or config.goal) to a private 0600
//     file and starts `slipway run --budget N --json --root WORKTREE
//     --goal-file F`, or, for a request that resumes a slipway session,
//     reads `slipway status RUN --root WORKTREE --json` and resumes the
//     Run when its typed next says so (a Run a person stopped only with
//     config resume_stopped; resume.fork starts a fresh Run instead);
//  3. for each Action, reads the required material sections through the
//     pinned reader, hands the agent an [Envelope] on stdin, checks the
//     Outcome it prints with [CheckOutcome] and submits it with
//     --outcome-file through the typed next (argv from base_argv, inputs as
//     separate elements; base_argv[0], the literal "slipway", becomes the
//     configured binary);
//  4. turns the end or pause into the result: ok with [Outputs] for a
//     summarized Run, reject with the question and the answer commands for
//     a pause, retry for an exhausted budget, fail for errors (exit 2:
//     config_invalid or dependency_missing, with the CLI's code in the
//     message; exit 3: the error's code; exit 1: slipway_defect). An
//     interrupted attempt or a failed agent leaves the Run active and
//     says how to resume or skip it.
//
// The Run id is the result's session (provider "slipway").
//
// [MainInteractive] is the same step as an interactive one (`kusaw-step
// slipway --interactive`, on a pty): the request, events and result go
// through KUSAW_REQUEST, KUSAW_EVENTS and KUSAW_RESULT, and a pause is put
// to the person on the terminal. A decision is answered with the line they
// type (in a private 0600 file, through the answer-decision variant); a
// destructive confirmation is granted only when they type exactly its
// scope digest. Anything else, or the end of input, leaves the pause to
// the result, as the non-interactive step does.
//
// It does not parse display commands, repair an agent's Outcome, retry a
// committed mutation, or grant a destructive confirmation on its own: a
// person does, on the terminal or with the command the result gives. It
// reads no source from GitHub: config.source_file is the envelope.
package slipway
