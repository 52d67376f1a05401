// Package sandbox runs an untrusted step inside an OS sandbox: it turns a
// [Policy] (the request's sandbox object plus the operator's flags) into a
// wrapped [*exec.Cmd], and runs the egress [Proxy] that is the step's only
// way out when the network is an allowlist.
//
// The runner's calls, before the step starts and around it:
//
//	plan, err := sandbox.Prepare(req, hs, opts) // policy, env, needs, warnings
//	reason, _ := sandbox.Reason(err)            // sandbox_unavailable, secret_not_declared, dependency_missing
//	cmd.Env = plan.Env
//	sb, err := sandbox.Wrap(cmd, plan.Policy) // starts the proxy when needed
//	left, more := sb.Leftovers(stopped)       // after cmd.Wait: processes_left
//	defer sb.Close()                          // after cmd.Wait
//	stdout := plan.Masker(cappedLog)          // before truncation
//
// [Prepare] is [NewPolicy], [BuildEnv], [CheckPaths] and
// [EgressWarnings] in one call.
//
// On Linux the backend is bubblewrap (bwrap): every namespace unshared, /
// read-only, tmpfs over /tmp, /run and /var/tmp, writable binds opened
// without following symlinks, never root inside, the sandbox killed with
// the runner. The runner's own binary stands between the runner and bwrap
// ([RunSupervisor], the hidden subcommand [SuperviseCommand]) so that a
// SIGTERM reaches the step: bwrap alone would die of it and SIGKILL the
// step. Inside, the same binary is the step's init ([RunInit], the hidden
// subcommand [InitCommand]): once the step exits it reports what the
// step left running, which the pid namespace would otherwise kill unseen,
// and kills it; the runner reads the report with [Sandbox.Leftovers].
// On macOS it is a seatbelt profile ([SeatbeltProfile]) run
// through sandbox-exec. Elsewhere [Wrap] returns [ErrUnavailable].
//
// With a network allowlist the step reaches the [Proxy] through a unix
// socket bound into the sandbox and bridged to 127.0.0.1:[DefaultPort]
// inside by the runner's own binary ([RunBridge], the hidden subcommand
// [BridgeCommand]).
//
// Secrets never reach a log: a [Masker] replaces by *** every form of
// them a JSON reader, a URL decoder or a hex or base64 decoder turns back
// into the secret, in any mix of escapes; a secret under [MinSecretLen]
// bytes is not masked, and [Prepare] warns about it.
package sandbox
