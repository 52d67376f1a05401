// Kusaw-step runs steps of the Kusaw step protocol v2 and checks what they
// say.
//
// Usage:
//
//	kusaw-step run [flags] STEP [ARG...]        run one attempt
//	kusaw-step run [flags] --kind slipway       run the built-in slipway step
//	kusaw-step conform [flags] STEP [ARG...]    run the conformance battery; exit 0 iff no MUST check failed
//	kusaw-step slipway [--interactive]          the slipway step itself (it speaks the step protocol)
//	kusaw-step handshake [--json] STEP [ARG...] run the handshake, print it and its warnings
//	kusaw-step request [flags]                  print a synthesized valid request
//	kusaw-step validate KIND FILE|-             validate a document
//	kusaw-step schema KIND | --doc              print an embedded schema (attempt: the record's), or the whole reference
//	kusaw-step note OUT_DIR TEXT                send a steer note to an attempt
//	kusaw-step show [--json] OUT_DIR            show a finished attempt again, or say it is running or unfinished
//	kusaw-step ls [DIR]                         list the attempts in DIR (default the runs folder), newest first
//	kusaw-step version                          print the version and the protocol versions spoken
//	kusaw-step completion bash|zsh|fish         print a shell completion script
//	kusaw-step help [COMMAND]                   print this, or a command's help (also COMMAND --help)
//
// run hands the step a request (--request FILE, or one synthesized from
// --mode, --config JSON|@FILE, --worktree, --artifacts and --timeout), reads
// its events live, checks its result and writes the attempt folder (--out,
// default kusaw-runs/STEP-TIME, or the user cache folder's
// kusaw-step/runs/STEP-TIME when kusaw-runs lies in the worktree):
// request.json, stdout.jsonl, stderr.log, result.json, attempt.json and
// artifacts/. A folder holds one attempt: it is locked while it runs, and a
// non-empty --out is refused unless --force; --after PREV_OUT starts the
// next attempt after PREV_OUT, with its pending notes. It shows a live
// status line on a terminal and a verdict block; --json prints the attempt
// record instead.
// On a timeout or SIGINT the step's process group gets SIGTERM, then SIGKILL
// after --grace (default 5s). The step runs in a sandbox (--sandbox
// auto|bwrap|seatbelt|off, default auto; --writable DIR, --allow-host HOST
// for an egress allowlist through the runner's proxy) with an environment
// built from a small base, the KUSAW_* variables and what its handshake
// declares in needs_env; --secret NAME and --secrets-file FILE hand it
// secrets it declares, masked in every log and the record, and
// --inject NAME=HOST:HEADER has the proxy add one to requests to HOST. The first
// protocol error stops the step unless --keep-going.
//
// An interactive step (handshake "interactive": true) runs on a
// pseudo-terminal: stdin, in raw mode when it is a terminal, is its input
// and stdout (stderr with --json) its screen, kept in terminal.log; it reads
// its request from KUSAW_REQUEST, appends events to KUSAW_EVENTS
// (events.jsonl) and writes its result to KUSAW_RESULT (result.json). Its
// continue_hint is shown before it starts and in the status line (the
// terminal's title, while the step has the screen).
//
// note appends a steer note to OUT_DIR: a running step whose handshake says
// "notes": "live" reads it in KUSAW_NOTES_FILE (notes.jsonl) and answers
// with a note_ack event; otherwise it waits in notes.pending.jsonl until the
// next start, which hands it over in context.notes: kusaw-step run --after
// OUT_DIR --out NEW_DIR (or --out OUT_DIR while it holds no attempt).
// attempt.json lists the notes given and whether each was acknowledged.
//
// validate takes the kinds handshake, request, event, result and
// outputs:NAME, where NAME is one of score, classify, improvement-draft,
// plan, retro, review-findings, review-fix, review-match, review, selection,
// triage-assessments, triage-groups. The document is first decoded strictly
// (a byte order mark, invalid UTF-8, a duplicate key or trailing data is
// rejected with its byte offset), then checked against its schema; each
// problem is one line "JSON-pointer: message".
//
// Exit status: 0 when the verdict is ok (or the document is valid), 1 for
// any other verdict (or an invalid document), 2 for a usage error, 3 when
// the runner itself failed, and 130 when Ctrl-C (SIGINT) cancelled it
// (143 for SIGTERM), as shells expect.
package main

import _ "embed"

//go:embed doc.go
var docSource string
