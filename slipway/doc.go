// Package slipway is the slipway step kind: a conforming Kusaw step that
// hosts a Slipway Run over Slipway's machine protocol v2, calling an agent
// command (a model) for each Action.
//
// To host a Run, [Main]:
//  1. answers KUSAW_HANDSHAKE=1 with its handshake, or reads the v2 request;
//  2. writes the goal (the task spec, or config.goal) to a private 0600
//     file and starts `slipway run --budget N --json --root WORKTREE
//     --goal-file F`, or, for a request that resumes a slipway session,
//     reads `slipway status RUN` and resumes the Run when its typed next
//     says so;
//  3. for each Action, reads the required material sections through the
//     pinned reader, hands the agent an [Envelope] on stdin, checks the
//     Outcome it prints with [CheckOutcome] and submits it with
//     --outcome-file through the typed next (argv from base_argv, inputs as
//     separate elements; base_argv[0], the literal "slipway", becomes the
//     configured binary);
//  4. turns the end or pause into the result: ok with [Outputs] for a
//     summarized Run, reject with the question and the answer commands for
//     a pause, retry for an exhausted budget, fail for errors (exit 2:
//     protocol_error; exit 3: the error's code; exit 1: slipway_defect).
//
// The Run id is the result's session (provider "slipway").
//
// It does not parse display commands, repair an agent's Outcome, retry a
// committed mutation, or grant a destructive confirmation: a person does,
// with the command the result gives. It does not answer pauses on a
// terminal (the interactive variant is not built yet), and it reads no
// source from GitHub: config.source_file is the envelope.
package slipway
