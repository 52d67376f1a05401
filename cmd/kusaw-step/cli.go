package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"kusaw.dev/step/protocol"
)

// flagOut is the output of every subcommand's flag set. The flag package
// writes its own error text and usage there; flagOut discards them
// (parseFlags says it in one line instead) and carries the command's
// environment, so parseFlags knows where help goes without another
// argument.
type flagOut struct{ env *cmdEnv }

func (flagOut) Write(p []byte) (int, error) { return len(p), nil }

// envOf returns the environment newFlags gave fs.
func envOf(fs *flag.FlagSet) *cmdEnv {
	if o, ok := fs.Output().(flagOut); ok && o.env != nil {
		return o.env
	}
	return &cmdEnv{stdout: io.Discard, stderr: io.Discard}
}

// commandName is the subcommand a flag set is for: "run" for
// "kusaw-step run".
func commandName(fs *flag.FlagSet) string {
	return strings.TrimPrefix(fs.Name(), "kusaw-step ")
}

// errHelped is returned once help was printed on request: exit status 0.
var errHelped = &exitError{code: exitOK, err: errSilent}

// flagError turns the flag package's error into one line for a person:
// which flag, what was wrong, and where to look.
func flagError(fs *flag.FlagSet, err error) string {
	name := commandName(fs)
	see := "; see kusaw-step " + name + " --help"
	msg := err.Error()
	if f, ok := strings.CutPrefix(msg, "flag provided but not defined: "); ok {
		return fmt.Sprintf("kusaw-step %s: unknown flag %s%s", name, dashes(f), see)
	}
	if f, ok := strings.CutPrefix(msg, "flag needs an argument: "); ok {
		return fmt.Sprintf("kusaw-step %s: flag %s needs a value%s", name, dashes(f), see)
	}
	if value, flagName, cause, ok := invalidValue(msg); ok {
		fl := fs.Lookup(flagName)
		switch {
		case fl != nil && isDuration(fl):
			cause = durationHint(value)
		case fl != nil && isBoolFlag(fl):
			cause = "want true or false (or the bare --" + flagName + ")"
		}
		return fmt.Sprintf("kusaw-step %s: --%s %s: %s%s", name, flagName, value, cause, see)
	}
	return fmt.Sprintf("kusaw-step %s: %s%s", name, msg, see)
}

// invalidValue takes apart the flag package's
// `invalid value "V" for flag -NAME: CAUSE` (and its boolean variant).
func invalidValue(msg string) (value, name, cause string, ok bool) {
	rest, ok := strings.CutPrefix(msg, "invalid value ")
	if !ok {
		rest, ok = strings.CutPrefix(msg, "invalid boolean value ")
	}
	if !ok {
		return "", "", "", false
	}
	quoted, rest, ok1 := strings.Cut(rest, " for ")
	rest = strings.TrimPrefix(rest, "flag ")
	flagPart, cause, ok2 := strings.Cut(rest, ": ")
	value, err := strconv.Unquote(quoted)
	if !ok1 || !ok2 || err != nil {
		return "", "", "", false
	}
	return value, strings.TrimLeft(flagPart, "-"), cause, true
}

// durationHint says what a duration flag wants: a bare number lacks its
// unit.
func durationHint(value string) string {
	if _, err := strconv.ParseFloat(value, 64); err == nil {
		return fmt.Sprintf("use a unit: %ss, %sm", value, value)
	}
	return "want a duration such as 30s, 2m or 1h30m"
}

// dashes writes a flag the way the help does: --name.
func dashes(f string) string { return "--" + strings.TrimLeft(f, "-") }

// isDuration reports whether fl holds a time.Duration.
func isDuration(fl *flag.Flag) bool {
	g, ok := fl.Value.(flag.Getter)
	if !ok {
		return false
	}
	_, ok = g.Get().(time.Duration)
	return ok
}

// printHelp writes the help of the subcommand fs is for to w.
func printHelp(w io.Writer, fs *flag.FlagSet) {
	name := commandName(fs)
	h, ok := helps[name]
	if !ok { // a command without its entry in help.go still gets its flags
		h = helpText{summary: "see kusaw-step --help", usage: []string{name + " [flags]"}}
	}
	fmt.Fprintf(w, "kusaw-step %s — %s\n\nusage:\n", name, h.summary)
	for _, u := range h.usage {
		fmt.Fprintf(w, "  kusaw-step %s\n", u)
	}
	if h.about != "" {
		fmt.Fprintf(w, "\n%s\n", wrap(h.about, 78, ""))
	}
	seen := make(map[string]bool)
	for _, g := range h.groups {
		var present []*flag.Flag
		for _, n := range g.flags {
			if fl := fs.Lookup(n); fl != nil && !seen[n] {
				seen[n] = true
				present = append(present, fl)
			}
		}
		if len(present) == 0 {
			continue
		}
		fmt.Fprintf(w, "\n%s flags:\n", g.title)
		for _, fl := range present {
			writeFlag(w, fl)
		}
	}
	var other []*flag.Flag
	fs.VisitAll(func(fl *flag.Flag) {
		if !seen[fl.Name] {
			other = append(other, fl)
		}
	})
	if len(other) > 0 {
		fmt.Fprintf(w, "\nOther flags:\n")
		for _, fl := range other {
			writeFlag(w, fl)
		}
	}
	if len(h.examples) > 0 {
		fmt.Fprintf(w, "\nExamples:\n")
		for _, e := range h.examples {
			fmt.Fprintf(w, "  %s\n", e)
		}
	}
}

// argNames name a flag's value where its usage text does not.
var argNames = map[string]string{
	"config": "JSON|@FILE", "context": "JSON|@FILE", "log-level": "LEVEL", "sandbox": "MODE", "mode": "MODE",
	"report": "FORMAT", "step": "NAME",
}

// writeFlag writes one flag: its name and value, then its usage and
// default, wrapped.
func writeFlag(w io.Writer, fl *flag.Flag) {
	arg, usage := flag.UnquoteUsage(fl)
	if a, ok := argNames[fl.Name]; ok && arg != "" {
		arg = a
	}
	head := "  --" + fl.Name
	if arg != "" {
		head += " " + strings.ToUpper(arg)
	}
	if def := defaultText(fl); def != "" {
		usage += " (default " + def + ")"
	}
	const col = 28
	if len(head) < col-1 {
		fmt.Fprintf(w, "%-*s%s\n", col, head, wrap(usage, 78-col, strings.Repeat(" ", col)))
		return
	}
	fmt.Fprintf(w, "%s\n%s%s\n", head, strings.Repeat(" ", col), wrap(usage, 78-col, strings.Repeat(" ", col)))
}

// defaultText is a flag's default as a person would type it; "" when the
// default is the zero value.
func defaultText(fl *flag.Flag) string {
	if isDuration(fl) {
		return shortDuration(fl.DefValue)
	}
	switch fl.DefValue {
	case "", "false", "0", "[]":
		return ""
	}
	return fl.DefValue
}

// shortDuration drops the zero tails time.Duration's String adds: 30m0s
// is 30m, 1h0m0s is 1h.
func shortDuration(s string) string {
	if s == "0s" {
		return ""
	}
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}

// wrap breaks text into lines of at most width, each after the first
// starting with indent.
func wrap(text string, width int, indent string) string {
	var b strings.Builder
	n := 0
	for i, word := range strings.Fields(text) {
		switch {
		case i == 0:
		case n+1+utf8.RuneCountInString(word) > width:
			b.WriteString("\n" + indent)
			n = 0
		default:
			b.WriteByte(' ')
			n++
		}
		b.WriteString(word)
		n += utf8.RuneCountInString(word)
	}
	return b.String()
}

// jsonFlag checks that the value of the flag name (--config) is one JSON
// value, and when it is not says where: the column (and line), the text
// with a caret under the spot, and what JSON wants there. What the value
// must be beyond JSON (an object) is the request's to check.
func jsonFlag(name string, data []byte) error {
	_, err := protocol.Parse(data)
	var se *protocol.SyntaxError
	if !errors.As(err, &se) {
		return nil
	}
	off, reason := min(int(se.Offset), len(data)), se.Reason
	if strings.Contains(reason, "in literal") {
		for off > 0 && isWordByte(data[off-1]) {
			off--
		}
	}
	bare := off < len(data) && isWordByte(data[off]) && (data[off] < '0' || data[off] > '9')
	if bare && strings.Contains(reason, "invalid character") {
		reason = "a bare word; JSON keys and strings take double quotes"
	} else if strings.Contains(string(data), "'") {
		reason += "; JSON strings take double quotes, not single"
	}
	line, col, text := position(data, off)
	where := fmt.Sprintf("column %d", col)
	if bytesLines(data) > 1 {
		where = fmt.Sprintf("line %d, column %d", line, col)
	}
	text, caret := window(text, col)
	return usageErrorf("%s is not JSON: %s: %s\n  %s\n  %s^", name, where, reason, text, strings.Repeat(" ", caret-1))
}

// window cuts a long line to the part around column col (1-based, in
// runes), and returns it with col's place in it.
func window(text string, col int) (string, int) {
	const before, after = 50, 25
	r := []rune(strings.ReplaceAll(text, "\t", " "))
	start, end := max(0, col-1-before), min(len(r), col-1+after)
	out := string(r[start:end])
	caret := col - start
	if start > 0 {
		out, caret = "…"+out, caret+1
	}
	if end < len(r) {
		out += "…"
	}
	return out, caret
}

func isWordByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_'
}

// position returns the 1-based line and column of byte offset off in
// data, and that line's text.
func position(data []byte, off int) (line, col int, text string) {
	start := strings.LastIndexByte(string(data[:off]), '\n') + 1
	end := len(data)
	if i := strings.IndexByte(string(data[off:]), '\n'); i >= 0 {
		end = off + i
	}
	line = strings.Count(string(data[:off]), "\n") + 1
	col = utf8.RuneCount(data[start:off]) + 1
	return line, col, strings.TrimRight(string(data[start:end]), "\r")
}

func bytesLines(data []byte) int {
	return strings.Count(strings.TrimRight(string(data), "\n"), "\n") + 1
}

// asUsage makes err a usage error, unless it already carries a status.
func asUsage(err error) error {
	var ee *exitError
	if errors.As(err, &ee) {
		return err
	}
	return usageErrorf("%v", err)
}

// sandboxModes are the values --sandbox takes.
var sandboxModes = []string{"auto", "bwrap", "seatbelt", "off"}

// sandboxMode checks --sandbox before anything is started or written: a
// wrong mode is a usage error, not a failed attempt.
func sandboxMode(mode string) error {
	if !slices.Contains(sandboxModes, mode) {
		return usageErrorf("--sandbox %q: want %s", mode, strings.Join(sandboxModes, ", "))
	}
	return nil
}
