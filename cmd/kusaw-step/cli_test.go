package main

import (
	"bytes"
	"errors"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"
	"syscall"
	"testing"

	"kusaw.dev/step/sandbox"
	"kusaw.dev/step/steptest"
)

var update = flag.Bool("update", false, "rewrite the golden help files in testdata/help")

// TestHelpGolden holds each command's --help to its golden file (issue 16
// item 1): a synopsis, flags grouped, examples. go test -run TestHelpGolden
// -update rewrites them after a deliberate change.
func TestHelpGolden(t *testing.T) {
	for _, name := range append([]string{""}, commandOrder...) {
		args := []string{name, "--help"}
		file := name + ".txt"
		if name == "" {
			args, file = []string{"--help"}, "kusaw-step.txt"
		}
		out, errs, code := runCmd(t, "", args...)
		if code != exitOK || errs != "" {
			t.Errorf("kusaw-step %s: exit %d, stderr %q; want 0 and nothing", strings.Join(args, " "), code, errs)
		}
		golden := filepath.Join("testdata", "help", file)
		if *update {
			if err := os.MkdirAll(filepath.Dir(golden), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(golden, []byte(out), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(golden)
		if err != nil {
			t.Fatalf("%v (run go test -run TestHelpGolden -update)", err)
		}
		if out != string(want) {
			t.Errorf("kusaw-step %s differs from %s (go test -run TestHelpGolden -update):\n%s", strings.Join(args, " "), golden, out)
		}
	}
}

// TestHelpGroupsEveryFlag: every flag of every command is in one of its
// help's groups, and every group names only flags the command has.
func TestHelpGroupsEveryFlag(t *testing.T) {
	for _, c := range completionCommands(t.Context()) {
		grouped := map[string]bool{}
		for _, g := range helps[c.name].groups {
			for _, f := range g.flags {
				grouped[f] = true
			}
		}
		for _, f := range c.flags {
			if !grouped[f.Name] {
				t.Errorf("%s --%s is in no group of helps[%q] (help.go)", c.name, f.Name, c.name)
			}
		}
		if len(helps[c.name].examples) == 0 || helps[c.name].summary == "" || len(helps[c.name].usage) == 0 {
			t.Errorf("helps[%q] lacks a summary, usage or examples", c.name)
		}
	}
	for name := range commands {
		hidden := name == sandbox.BridgeCommand || name == sandbox.SuperviseCommand
		if !hidden && !slices.Contains(commandOrder, name) {
			t.Errorf("command %s is not in commandOrder, so neither the help nor completion shows it; add it, with its helps entry (help.go)", name)
		}
	}
}

// TestBinaryExitStatus runs the real built binary (issue 16 items 1–3):
// every command's --help and -h exit 0 with the help on stdout; every
// usage error exits 2 with one clear message on stderr.
func TestBinaryExitStatus(t *testing.T) {
	bin := steptest.Build(t, ".")
	run := func(args ...string) (string, string, int) {
		cmd := exec.Command(bin, args...)
		cmd.Dir = t.TempDir()
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		err := cmd.Run()
		var ee *exec.ExitError
		if err != nil && !errors.As(err, &ee) {
			t.Fatal(err)
		}
		return out.String(), errb.String(), cmd.ProcessState.ExitCode()
	}
	t.Run("help", func(t *testing.T) {
		lines := [][]string{{"--help"}, {"-h"}, {"help"}, {"help", "run"}}
		for _, name := range commandOrder {
			lines = append(lines, []string{name, "--help"}, []string{name, "-h"})
		}
		for _, args := range lines {
			out, errs, code := run(args...)
			if code != 0 || errs != "" || !strings.Contains(out, "usage") && !strings.Contains(out, "Usage") {
				t.Errorf("kusaw-step %s: exit %d, stderr %q, stdout %.80q; want exit 0 and the help on stdout", strings.Join(args, " "), code, errs, out)
			}
		}
	})
	t.Run("version", func(t *testing.T) {
		for _, args := range [][]string{{"version"}, {"--version"}} {
			out, _, code := run(args...)
			if code != 0 || !strings.HasPrefix(out, "kusaw-step ") || !strings.Contains(out, "protocol   2\n") {
				t.Errorf("kusaw-step %s: exit %d\n%s", args[0], code, out)
			}
		}
	})
	attempt := filepath.Join(t.TempDir(), "attempt")
	tests := []struct {
		item string
		args []string
		want string // the whole of stderr when oneLine, else a substring
		one  bool
	}{
		{"1", []string{"run", "--bogus", "x"}, "kusaw-step run: unknown flag --bogus; see kusaw-step run --help\n", true},
		{"1", []string{"conform", "-x", "x"}, "kusaw-step conform: unknown flag --x; see kusaw-step conform --help\n", true},
		{"1", []string{"validate", "--strict", "result", "-"}, "kusaw-step validate: unknown flag --strict; see kusaw-step validate --help\n", true},
		{"1", []string{"note", "--bogus"}, "unknown flag --bogus; see kusaw-step note --help", true},
		{"1", []string{"--bogus"}, "kusaw-step: unknown flag --bogus; see kusaw-step --help\n", true},
		{"1", []string{"bogus"}, `unknown command "bogus"`, true},
		{"2", []string{"run", "--sandbox", "foo", "--out", attempt, "x"}, `--sandbox "foo": want auto, bwrap, seatbelt, off`, true},
		{"2", []string{"run", "--timeout", "5", "x"}, "--timeout 5: use a unit: 5s, 5m", true},
		{"2", []string{"conform", "--timeout", "soon", "x"}, "--timeout soon: want a duration such as 30s", true},
		{"2", []string{"run", "--timeout", "x"}, "--timeout x: want a duration", true},
		{"2", []string{"run", "--config", "{name:1}", "x"}, "--config is not JSON: column 2: a bare word; JSON keys and strings take double quotes\n  {name:1}\n   ^\n", false},
		{"2", []string{"conform", "--config", "{name:1}", "x"}, "--config is not JSON: column 2", false},
		{"2", []string{"request", "--config", `{"a":}`}, "--config is not JSON: column 6", false},
		{"2", []string{"run", "--json=maybe", "x"}, "--json maybe: want true or false", true},
		{"2", []string{"run", "--grace"}, "flag --grace needs a value", true},
		{"2", []string{"run"}, "usage: kusaw-step run", true},
		{"2", []string{"run", "--log-level", "loud", "x"}, "--log-level", true},
		{"2", []string{"conform"}, "usage: kusaw-step conform", true},
		{"2", []string{"conform", "--report", "xml", "x"}, `--report "xml"`, true},
		{"2", []string{"handshake"}, "usage: kusaw-step handshake", true},
		{"2", []string{"request", "extra"}, "request takes no arguments", true},
		{"2", []string{"validate"}, "usage: kusaw-step validate", false},
		{"2", []string{"schema"}, "usage: kusaw-step schema", false},
		{"2", []string{"note"}, "usage: kusaw-step note", true},
		{"2", []string{"slipway", "extra"}, "usage: kusaw-step slipway", true},
		{"3", []string{"version", "extra"}, "version takes no arguments", true},
		{"3", []string{"completion"}, "usage: kusaw-step completion bash|zsh|fish", true},
		{"3", []string{"completion", "powershell"}, `completion "powershell": want bash, zsh or fish`, true},
		{"3", []string{"help", "bogus"}, `unknown command "bogus"`, true},
	}
	for _, tt := range tests {
		out, errs, code := run(tt.args...)
		okText := strings.Contains(errs, tt.want)
		if tt.one && strings.HasSuffix(tt.want, "\n") {
			okText = errs == tt.want
		}
		if code != exitUsage || out != "" || !okText || tt.one && strings.Count(errs, "\n") != 1 {
			t.Errorf("item %s: kusaw-step %s: exit %d, stdout %q, stderr:\n%s\nwant exit 2, nothing on stdout, and %q on stderr (one line: %v)",
				tt.item, strings.Join(tt.args, " "), code, out, errs, tt.want, tt.one)
		}
	}
	if _, err := os.Stat(attempt); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("--sandbox foo made the attempt folder (%v); a usage error must not", err)
	}
}

// TestCompletion drives the bash script as bash would, and checks the zsh
// and fish scripts name every command and flag (issue 16 item 3).
func TestCompletion(t *testing.T) {
	script, _, code := runCmd(t, "", "completion", "bash")
	if code != exitOK {
		t.Fatalf("completion bash: exit %d", code)
	}
	path := filepath.Join(t.TempDir(), "kusaw-step.bash")
	if err := os.WriteFile(path, []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		words string // the command line, the last word being completed
		want  string
	}{
		{"kusaw-step co", "conform completion"},
		{"kusaw-step run --sa", "--sandbox"},
		{"kusaw-step run --sandbox ''", "auto bwrap seatbelt off"},
		{"kusaw-step conform --report j", "json junit"},
		{"kusaw-step completion ''", "bash zsh fish"},
		{"kusaw-step handshake --", "--timeout --json --sandbox --allow-host --help"},
	} {
		probe := `source "$1"; eval "COMP_WORDS=($2)"; COMP_CWORD=$((${#COMP_WORDS[@]}-1)); _kusaw_step; echo "${COMPREPLY[*]}"`
		out, err := exec.Command("bash", "-c", probe, "bash", path, tt.words).CombinedOutput()
		got := strings.Fields(string(out))
		want := strings.Fields(tt.want)
		if err != nil || !sameSet(got, want) {
			t.Errorf("bash completion of %q: %q (%v); want %q", tt.words, got, err, want)
		}
	}
	for _, shell := range []string{"zsh", "fish"} {
		script, _, code := runCmd(t, "", "completion", shell)
		for _, c := range completionCommands(t.Context()) {
			if code != exitOK || !strings.Contains(script, c.name) {
				t.Errorf("completion %s: exit %d, lacks %s", shell, code, c.name)
			}
			for _, f := range c.flags {
				if !strings.Contains(script, f.Name) {
					t.Errorf("completion %s lacks %s --%s", shell, c.name, f.Name)
				}
			}
		}
		if _, err := exec.LookPath(shell); err != nil {
			t.Logf("%s is not installed: its script's syntax is not checked", shell)
			continue
		}
		cmd := exec.Command(shell, "-n")
		cmd.Stdin = strings.NewReader(script)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("%s -n: %v\n%s", shell, err, out)
		}
	}
}

func sameSet(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	m := map[string]int{}
	for _, s := range a {
		m[s]++
	}
	for _, s := range b {
		m[s]--
	}
	for _, n := range m {
		if n != 0 {
			return false
		}
	}
	return true
}

func TestWriteVersion(t *testing.T) {
	info := &debug.BuildInfo{GoVersion: "go1.26.0", Main: debug.Module{Version: "v0.3.1"}, Settings: []debug.BuildSetting{
		{Key: "vcs.revision", Value: "0123abc"}, {Key: "vcs.modified", Value: "true"}, {Key: "vcs.time", Value: "2026-12-01T19:00:00Z"},
	}}
	var b bytes.Buffer
	writeVersion(&b, info)
	want := "kusaw-step v0.3.1\nrevision   0123abc (modified)\ncommitted  2026-12-01T19:00:00Z\ngo         go1.26.0\nprotocol   2\n"
	if b.String() != want {
		t.Errorf("writeVersion:\n%s\nwant:\n%s", b.String(), want)
	}
	b.Reset()
	writeVersion(&b, nil)
	if b.String() != "kusaw-step (unknown)\ngo         (unknown)\nprotocol   2\n" {
		t.Errorf("writeVersion(nil):\n%s", b.String())
	}
}

func TestJSONFlag(t *testing.T) {
	for _, tt := range []struct {
		in, want string // want "" means valid
	}{
		{`{"name":1}`, ""},
		{`[1]`, ""}, // JSON; that config must be an object is the request's rule
		{`{name:1}`, "--config is not JSON: column 2: a bare word; JSON keys and strings take double quotes\n  {name:1}\n   ^"},
		{`{'a':1}`, "column 2: invalid character '\\'' at start of value; JSON strings take double quotes, not single"},
		{"{\n  \"a\": tru\n}", "line 2, column 8: a bare word"},
		{`{"a":1} x`, "column 9"},
		{`{"é":x}`, "column 6"},
		{`{"a":"` + strings.Repeat("x", 100) + `",b:1}`, "column 109: a bare word; JSON keys and strings take double quotes\n  …" + strings.Repeat("x", 48) + `",b:1}` + "\n" + strings.Repeat(" ", 2+51) + "^"},
	} {
		err := jsonFlag("--config", []byte(tt.in))
		switch {
		case tt.want == "" && err != nil:
			t.Errorf("jsonFlag(%q) = %v; want nil", tt.in, err)
		case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want) || exitCode(err) != exitUsage):
			t.Errorf("jsonFlag(%q) = %v; want a usage error containing %q", tt.in, err, tt.want)
		}
	}
}

// TestSignalExit: a command cancelled by a signal exits 128+n, as shells
// have it (issue 16 item 4); one that succeeded anyway exits 0.
func TestSignalExit(t *testing.T) {
	for _, tt := range []struct {
		code int
		sig  os.Signal
		want int
	}{
		{exitFailed, syscall.SIGINT, 130},
		{exitRunner, syscall.SIGINT, 130},
		{exitFailed, syscall.SIGTERM, 143},
		{exitOK, syscall.SIGINT, exitOK},
		{exitFailed, nil, exitFailed},
	} {
		if got := signalExit(tt.code, tt.sig); got != tt.want {
			t.Errorf("signalExit(%d, %v) = %d; want %d", tt.code, tt.sig, got, tt.want)
		}
	}
}
