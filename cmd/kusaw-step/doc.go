// Kusaw-step runs steps of the Kusaw step protocol v2 and checks what they
// say.
//
// Usage:
//
//	kusaw-step run [flags] STEP [ARG...]        run one attempt
//	kusaw-step handshake [--json] STEP [ARG...] run the handshake, print it and its warnings
//	kusaw-step request [flags]                  print a synthesized valid request
//	kusaw-step validate KIND FILE|-             validate a document
//	kusaw-step schema KIND | --doc              print an embedded schema, or the whole reference
//
// run hands the step a request (--request FILE, or one synthesized from
// --mode, --config JSON|@FILE, --worktree, --artifacts and --timeout), reads
// its events live, checks its result and writes the attempt folder (--out,
// default kusaw-runs/STEP-TIME): request.json, stdout.jsonl, stderr.log,
// result.json, attempt.json and artifacts/. It shows a live status line on a
// terminal and a verdict block; --json prints the attempt record instead.
// On a timeout or SIGINT the step's process group gets SIGTERM, then SIGKILL
// after --grace (default 5s). The first protocol error stops the step unless
// --keep-going.
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
// the runner itself failed.
package main

import _ "embed"

//go:embed doc.go
var docSource string
