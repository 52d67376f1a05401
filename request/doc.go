// Package request builds, checks and encodes the v2 request an attempt
// hands to a step, and the KUSAW_* environment the attempt runs with.
//
// There are two ways to get a request:
//
//   - [Synthesize] makes one for a local run from a few [Options]: every
//     limit at the spec's default, generated ids (null where the mode says
//     so: intake, triage), one repos[] entry when the worktree is inside a
//     git checkout, and a sample context for the mode with the caller's
//     [Options.Context] merged over it ([SampleFiles] gives the files the
//     sample names);
//   - [Load] reads a full request from a file, strictly (duplicate keys,
//     invalid UTF-8, trailing data are rejected) and against the request
//     schema, and returns the file's exact bytes with the typed request, so
//     the runner can hand the step what the caller wrote, unknown fields
//     included; [Decode] does the same checks on bytes in memory.
//
// [Encode] turns a typed request back into JSON and checks it against the
// schema. [WithSandbox] sets a request's sandbox member to what [Sandbox]
// builds from the runner's decision, keeping every other member's bytes.
// [Env] builds an attempt's environment from the spec's
// environment-variable table (schemas.EnvVars), deriving each variable the
// table describes from the request ([RepoCapabilities] gives the content
// of the file one of them names; [FactoryOnly] are those it never sets).
//
// Every request that leaves this package has passed the request schema.
// Problems come back as an [*InvalidError], one "pointer: message" line each.
//
// The package does not run steps, write files or decide anything about an
// attempt's outcome. The only process it ever spawns is git, read-only,
// with a timeout, when Synthesize looks at the worktree; it also lists the
// worktree's top-level files for an Atlas sample context.
package request
