package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"

	"kusaw.dev/step/conform"
	"kusaw.dev/step/protocol"
	"kusaw.dev/step/schemas"
)

// cmdCompletion prints a completion script for a shell. The scripts are
// made from the commands' own flag sets, so they never fall behind.
func cmdCompletion(ctx context.Context, env *cmdEnv, args []string) error {
	fs := newFlags("completion", env)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return usageErrorf("usage: kusaw-step completion bash|zsh|fish")
	}
	cmds := completionCommands(ctx)
	switch fs.Arg(0) {
	case "bash":
		writeBash(env.stdout, cmds)
	case "zsh":
		writeZsh(env.stdout, cmds)
	case "fish":
		writeFish(env.stdout, cmds)
	default:
		return usageErrorf("completion %q: want bash, zsh or fish", fs.Arg(0))
	}
	return nil
}

// compCommand is what completion knows of one command.
type compCommand struct {
	name, summary string
	flags         []*flag.Flag
	args          []string // the words its first argument may be; nil means files
}

// flagValues are the words some flags take.
var flagValues = map[string][]string{
	"sandbox":   sandboxModes,
	"report":    conform.Formats,
	"log-level": {"debug", "info", "warn", "error"},
	"kind":      {"slipway"},
	"mode":      protocol.Modes,
}

// completionCommands lists the commands with their flags, read from the
// flag set each command makes when asked for --help.
func completionCommands(ctx context.Context) []compCommand {
	var out []compCommand
	for _, name := range commandOrder {
		env := &cmdEnv{stdin: strings.NewReader(""), stdout: io.Discard, stderr: io.Discard}
		_ = commands[name](ctx, env, []string{"--help"})
		c := compCommand{name: name, summary: helps[name].summary}
		if env.flags != nil {
			env.flags.VisitAll(func(fl *flag.Flag) { c.flags = append(c.flags, fl) })
		}
		switch name {
		case "completion":
			c.args = []string{"bash", "zsh", "fish"}
		case "schema", "validate":
			c.args = schemas.Kinds()
		case "help":
			c.args = commandOrder
		case "version":
			c.args = []string{}
		}
		out = append(out, c)
	}
	return out
}

func isBoolFlag(fl *flag.Flag) bool {
	b, ok := fl.Value.(interface{ IsBoolFlag() bool })
	return ok && b.IsBoolFlag()
}

// shortUsage is a flag's usage up to its first clause, without the
// characters shells quote.
func shortUsage(fl *flag.Flag) string {
	_, u := flag.UnquoteUsage(fl)
	if i := strings.IndexByte(u, ';'); i > 0 {
		u = u[:i]
	}
	u = strings.Map(func(r rune) rune {
		if strings.ContainsRune("[]:'\"`$\\", r) {
			return -1
		}
		return r
	}, u)
	return strings.TrimSpace(cut(u, 60))
}

func writeBash(w io.Writer, cmds []compCommand) {
	names := make([]string, len(cmds))
	for i, c := range cmds {
		names[i] = c.name
	}
	fmt.Fprintf(w, `# bash completion for kusaw-step. Load it with: source <(kusaw-step completion bash)
_kusaw_step() {
    local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}
    if [[ $COMP_CWORD -eq 1 ]]; then
        COMPREPLY=($(compgen -W "%s --help --version" -- "$cur"))
        return
    fi
    case $prev in
`, strings.Join(names, " "))
	for _, name := range sortedKeys(flagValues) {
		fmt.Fprintf(w, "        --%s) COMPREPLY=($(compgen -W %q -- \"$cur\")); return ;;\n", name, strings.Join(flagValues[name], " "))
	}
	fmt.Fprintf(w, "    esac\n    local flags= args=\n    case ${COMP_WORDS[1]} in\n")
	for _, c := range cmds {
		var fl []string
		for _, f := range c.flags {
			fl = append(fl, "--"+f.Name)
		}
		fl = append(fl, "--help")
		fmt.Fprintf(w, "        %s) flags=%q", c.name, strings.Join(fl, " "))
		if c.args != nil {
			fmt.Fprintf(w, " args=%q", strings.Join(c.args, " "))
		}
		fmt.Fprintf(w, " ;;\n")
	}
	fmt.Fprint(w, `    esac
    if [[ $cur == -* ]]; then
        COMPREPLY=($(compgen -W "$flags" -- "$cur"))
    elif [[ -n $args && $COMP_CWORD -eq 2 ]]; then
        COMPREPLY=($(compgen -W "$args" -- "$cur"))
    fi
}
complete -o default -F _kusaw_step kusaw-step
`)
}

func writeZsh(w io.Writer, cmds []compCommand) {
	fmt.Fprint(w, "#compdef kusaw-step\n# zsh completion for kusaw-step. Install it with: kusaw-step completion zsh > \"${fpath[1]}/_kusaw-step\"\n")
	fmt.Fprint(w, "_kusaw-step() {\n  local -a commands\n  commands=(\n")
	for _, c := range cmds {
		fmt.Fprintf(w, "    '%s:%s'\n", c.name, strings.ReplaceAll(c.summary, "'", ""))
	}
	fmt.Fprint(w, "  )\n  if (( CURRENT == 2 )); then\n    _describe -t commands 'kusaw-step command' commands\n    return\n  fi\n")
	fmt.Fprint(w, "  local cmd=$words[2]\n  shift words\n  (( CURRENT-- ))\n  case $cmd in\n")
	for _, c := range cmds {
		fmt.Fprintf(w, "    %s)\n      _arguments -S \\\n", c.name)
		for _, f := range c.flags {
			fmt.Fprintf(w, "        %s \\\n", zshSpec(f))
		}
		fmt.Fprint(w, "        '--help[show the help]' \\\n")
		switch {
		case c.args == nil:
			fmt.Fprint(w, "        '*:file:_files'\n      ;;\n")
		case len(c.args) == 0:
			fmt.Fprint(w, "        && return\n      ;;\n")
		default:
			fmt.Fprintf(w, "        '1:argument:(%s)' '*:file:_files'\n      ;;\n", strings.Join(c.args, " "))
		}
	}
	fmt.Fprint(w, `  esac
}
if [[ $funcstack[1] == _kusaw-step ]]; then
  _kusaw-step "$@"
else
  compdef _kusaw-step kusaw-step
fi
`)
}

// zshSpec is one _arguments spec for a flag.
func zshSpec(f *flag.Flag) string {
	spec := "--" + f.Name + "[" + shortUsage(f) + "]"
	if isBoolFlag(f) {
		return "'" + spec + "'"
	}
	if _, ok := f.Value.(*listFlag); ok {
		spec = "*" + spec
	}
	arg, _ := flag.UnquoteUsage(f)
	action := " "
	switch vals, ok := flagValues[f.Name]; {
	case ok:
		action = "(" + strings.Join(vals, " ") + ")"
	case arg == "DIR":
		action = "_files -/"
	case arg == "FILE":
		action = "_files"
	}
	return "'" + spec + ":" + strings.ToLower(arg) + ":" + action + "'"
}

func writeFish(w io.Writer, cmds []compCommand) {
	fmt.Fprint(w, "# fish completion for kusaw-step. Install it with: kusaw-step completion fish > ~/.config/fish/completions/kusaw-step.fish\n")
	fmt.Fprint(w, "complete -c kusaw-step -f\n")
	fmt.Fprint(w, "complete -c kusaw-step -n __fish_use_subcommand -l help -d 'show the help'\n")
	fmt.Fprint(w, "complete -c kusaw-step -n __fish_use_subcommand -l version -d 'print the version'\n")
	for _, c := range cmds {
		fmt.Fprintf(w, "complete -c kusaw-step -n __fish_use_subcommand -a %s -d '%s'\n", c.name, strings.ReplaceAll(c.summary, "'", ""))
	}
	for _, c := range cmds {
		cond := fmt.Sprintf("-n '__fish_seen_subcommand_from %s'", c.name)
		for _, f := range c.flags {
			line := fmt.Sprintf("complete -c kusaw-step %s -l %s", cond, f.Name)
			if vals, ok := flagValues[f.Name]; ok {
				line += fmt.Sprintf(" -x -a '%s'", strings.Join(vals, " "))
			} else if !isBoolFlag(f) {
				line += " -r -F"
			}
			fmt.Fprintf(w, "%s -d '%s'\n", line, shortUsage(f))
		}
		fmt.Fprintf(w, "complete -c kusaw-step %s -l help -d 'show the help'\n", cond)
		switch {
		case c.args == nil:
			fmt.Fprintf(w, "complete -c kusaw-step %s -F\n", cond)
		case len(c.args) > 0:
			fmt.Fprintf(w, "complete -c kusaw-step %s -a '%s'\n", cond, strings.Join(c.args, " "))
		}
	}
}

func sortedKeys(m map[string][]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
