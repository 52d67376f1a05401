package main

// helpText is what `kusaw-step CMD --help` prints besides the flags
// themselves: a synopsis, the usage lines, the flags in groups, examples.
type helpText struct {
	summary  string      // one line: what the command does
	usage    []string    // the command lines, without "kusaw-step "
	about    string      // a short paragraph, or ""
	groups   []flagGroup // flags of the command in the order shown
	examples []string
}

// flagGroup is a titled set of flags in a command's help. A flag a
// command has but no group names is shown under "Other flags"
// (TestHelpGroupsEveryFlag says which); a flag a group names that the
// command lacks is left out, so the shared groups may name them all.
type flagGroup struct {
	title string
	flags []string
}

// The groups every command that takes them shares.
var (
	requestGroup = flagGroup{"Request", []string{"request", "mode", "config", "context", "worktree", "artifacts", "timeout", "completion-grace", "after"}}
	sandboxGroup = flagGroup{"Sandbox", []string{"sandbox", "allow-host", "writable", "readable", "pids-max", "memory-max", "secret", "secrets-file", "inject"}}
)

// commandOrder lists the commands as the top-level help and shell
// completion show them.
var commandOrder = []string{"run", "conform", "show", "ls", "handshake", "request", "validate", "schema", "note", "slipway", "version", "completion", "help"}

// helps holds each command's help.
var helps = map[string]helpText{
	"run": {
		summary: "run one attempt of a step and show it",
		usage:   []string{"run [flags] STEP [ARG...]", "run [flags] --kind slipway"},
		about: "Hands STEP a request, reads its events live, checks its result and writes " +
			"the attempt folder (--out). Exit status: 0 when the verdict is ok, 1 for any other " +
			"verdict, 2 for a usage error, 3 when the runner itself failed, 130 when Ctrl-C " +
			"cancelled the attempt (143 for SIGTERM).",
		groups: []flagGroup{
			requestGroup,
			{"Process", []string{"kind", "handshake-timeout", "grace", "keep-going"}},
			sandboxGroup,
			{"Output", []string{"out", "force", "after", "json", "log-level"}},
		},
		examples: []string{
			"kusaw-step run ./my-step",
			`kusaw-step run --config '{"name":"Kusaw"}' --timeout 2m --out runs/1 ./my-step`,
			"kusaw-step run --json --sandbox off python3 step.py > attempt.json",
		},
	},
	"conform": {
		summary: "run the conformance battery on a step",
		usage:   []string{"conform [flags] STEP [ARG...]"},
		about:   "Runs the handshake, attempt and interactive checks and reports each. Exit status 0 iff no MUST check failed.",
		groups: []flagGroup{
			{"Request", []string{"config", "mode", "timeout", "completion-grace", "answer"}},
			{"Checks", []string{"focus", "skip", "explore", "seed"}},
			{"Process", []string{"handshake-timeout", "grace"}},
			{"Sandbox", []string{"sandbox", "inherit-env"}},
			{"Output", []string{"report", "report-file", "keep"}},
		},
		examples: []string{
			"kusaw-step conform ./my-step",
			"kusaw-step conform --report junit --report-file conform.xml ./my-step",
			"kusaw-step conform --focus HS --answer yes ./my-interactive-step",
			"kusaw-step conform --explore 200 --seed 1 ./my-step",
		},
	},
	"handshake": {
		summary: "run a step's handshake and print what it declares",
		usage:   []string{"handshake [flags] STEP [ARG...]"},
		groups: []flagGroup{
			{"Process", []string{"timeout"}},
			{"Sandbox", []string{"sandbox", "allow-host"}},
			{"Output", []string{"json"}},
		},
		examples: []string{
			"kusaw-step handshake ./my-step",
			"kusaw-step handshake --json --allow-host api.example.com ./my-step",
		},
	},
	"request": {
		summary: "print the request a local run would hand a step",
		usage:   []string{"request [flags]"},
		groups: []flagGroup{
			requestGroup,
			{"Output", []string{"out", "step"}},
		},
		examples: []string{
			"kusaw-step request",
			`kusaw-step request --mode review --config '{"strict":true}' > request.json`,
			"kusaw-step request --mode classify --context @workflows.json",
		},
	},
	"validate": {
		summary: "check one document against the protocol",
		usage:   []string{"validate KIND FILE|-"},
		about: "KIND is handshake, request, event, result or outputs:NAME (kusaw-step schema lists them). " +
			"Each problem is one line, JSON-pointer: message. Exit status 1 when the document is invalid.",
		examples: []string{
			"kusaw-step validate result result.json",
			`echo '{"type":"progress","message":"hi"}' | kusaw-step validate event -`,
		},
	},
	"schema": {
		summary: "print an embedded JSON Schema, or the whole reference",
		usage:   []string{"schema KIND", "schema --doc"},
		groups:  []flagGroup{{"Output", []string{"doc"}}},
		examples: []string{
			"kusaw-step schema result",
			"kusaw-step schema --doc > reference.md",
		},
	},
	"show": {
		summary: "show a finished attempt again, as its run ended",
		usage:   []string{"show [--json] OUT_DIR"},
		about: "Renders the attempt's verdict block from its attempt.json; --json prints the record. " +
			"A running attempt, or an unfinished one (its runner was killed), is said to be one (exit 1).",
		groups:   []flagGroup{{"Output", []string{"json"}}},
		examples: []string{"kusaw-step show kusaw-runs/hello-20261201T190005123Z", "kusaw-step show --json runs/1 | jq .warnings"},
	},
	"ls": {
		summary: "list the attempts in a runs folder, newest first",
		usage:   []string{"ls [DIR]"},
		about: "One line per attempt: start time, step name@version, mode, verdict and reason, duration, " +
			"tokens and cost; running and unfinished attempts are marked so. DIR defaults to the folder " +
			"run puts attempts in (see README, Attempt folders).",
		examples: []string{"kusaw-step ls", "kusaw-step ls runs/"},
	},
	"note": {
		summary: "send a steer note to an attempt",
		usage:   []string{"note OUT_DIR TEXT"},
		about: "A running step that takes live notes gets it at once; any other waits in the folder " +
			"until the next attempt: kusaw-step run --after OUT_DIR --out NEW_DIR (a folder holds one " +
			"attempt), or run --out OUT_DIR while the folder holds none yet.",
		examples: []string{`kusaw-step note kusaw-runs/demo "prefer the smaller fix"`},
	},
	"slipway": {
		summary: "the built-in slipway step (it speaks the step protocol)",
		usage:   []string{"slipway [--interactive]"},
		about:   "A step, not a command for people: run it with kusaw-step run --kind slipway.",
		groups:  []flagGroup{{"Process", []string{"interactive"}}},
		examples: []string{
			`kusaw-step run --kind slipway --config '{"slipway":"slipway"}'`,
		},
	},
	"version": {
		summary:  "print the version, the VCS revision and the protocol versions spoken",
		usage:    []string{"version", "--version"},
		examples: []string{"kusaw-step version"},
	},
	"completion": {
		summary: "print a shell completion script",
		usage:   []string{"completion bash|zsh|fish"},
		examples: []string{
			"source <(kusaw-step completion bash)",
			"kusaw-step completion zsh > \"${fpath[1]}/_kusaw-step\"",
			"kusaw-step completion fish > ~/.config/fish/completions/kusaw-step.fish",
		},
	},
	"help": {
		summary:  "print the overview, or a command's help",
		usage:    []string{"help [COMMAND]"},
		examples: []string{"kusaw-step help run"},
	},
}
