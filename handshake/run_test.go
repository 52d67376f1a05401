package handshake_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"time"

	"kusaw.dev/step/handshake"
	"kusaw.dev/step/protocol"
)

// long is the timeout of handshakes that should end on their own: long
// enough for a loaded machine, never reached by a passing test.
const long = 2 * time.Minute

// line returns a valid handshake with the extra fields extra (",..." or "").
func line(extra string) string {
	return `{"type":"handshake","name":"fake","version":"1.0.0","interactive":false,"protocol_versions":[2]` + extra + `}`
}

// wantError checks that err is an [*handshake.Error] for condition want,
// with reason code reason and a cause that contains cause.
func wantError(t *testing.T, err, want error, reason, cause string) *handshake.Error {
	t.Helper()
	var he *handshake.Error
	if !errors.As(err, &he) {
		t.Fatalf("Run() error = %v (%T); want a *handshake.Error", err, err)
	}
	if !errors.Is(err, want) {
		t.Errorf("Run() error matches %v; want %v\n%v", he.Err, want, err)
	}
	if he.Reason != reason {
		t.Errorf("Reason = %q; want %q", he.Reason, reason)
	}
	if !strings.Contains(he.Cause, cause) {
		t.Errorf("Cause = %q; want it to contain %q", he.Cause, cause)
	}
	return he
}

func TestRunValid(t *testing.T) {
	t.Parallel()
	raw := `{"type":"handshake","name":"fake","version":"1.2.3","description":"a fake step",` +
		`"interactive":false,"protocol_versions":[1,2],"features":["atlas_scan"],` +
		`"needs_env":[{"name":"TOKEN","secret":true}],"notes":"live","x_future":true}`
	// KUSAW_* from the runner's environment must not reach the step: the
	// fake exits 97 if KUSAW_RUN_ID is not empty or KUSAW_HANDSHAKE not 1.
	argv, env := printStep(t, raw+"\n", stderrVar+"=a log line on stderr is not a warning\n",
		"KUSAW_RUN_ID=leaked", "KUSAW_HANDSHAKE=0", "KUSAW_SECRET=s")
	info, err := handshake.Run(t.Context(), argv, handshake.Options{Timeout: long, Env: env})
	if err != nil {
		t.Fatalf("Run() = %v", err)
	}
	if string(info.Raw) != raw {
		t.Errorf("Raw = %s; want %s", info.Raw, raw)
	}
	h := info.Handshake
	want := protocol.Handshake{
		Type: "handshake", Name: "fake", Version: "1.2.3", Description: "a fake step",
		ProtocolVersions: []int{1, 2}, Features: []string{"atlas_scan"},
		NeedsEnv: []protocol.EnvNeed{{Name: "TOKEN", Secret: true}}, Notes: "live",
	}
	got := *h
	got.Unknown = nil
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Handshake = %+v; want %+v", got, want)
	}
	if !strings.Contains(string(h.Unknown), `"x_future"`) {
		t.Errorf("Handshake.Unknown = %s; want it to keep x_future", h.Unknown)
	}
	if info.OutputsSchema != nil || info.Warnings != nil {
		t.Errorf("OutputsSchema, Warnings = %v, %v; want nil, nil", info.OutputsSchema, info.Warnings)
	}
}

// TestRunLineForms checks the forms one line may take.
func TestRunLineForms(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ name, stdout string }{
		{"CRLF", okLine + "\r\n"},
		{"no final newline", okLine},
		{"CR and no final newline", okLine + "\r"},
		{"blank lines around", "\n\r\n" + okLine + "\n\n"},
		{"exactly MaxLine", okLine + "\n"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			argv, env := printStep(t, tt.stdout)
			info, err := handshake.Run(t.Context(), argv, handshake.Options{Timeout: long, Env: env, MaxLine: len(okLine)})
			if err != nil {
				t.Fatalf("Run() with stdout %q = %v", tt.stdout, err)
			}
			if string(info.Raw) != okLine {
				t.Errorf("Raw = %q; want %q", info.Raw, okLine)
			}
		})
	}
}

func TestRunWarnings(t *testing.T) {
	t.Parallel()
	argv, env := printStep(t, `{"type":"handshake","name":"fake","version":"1","interactive":true,`+
		`"protocol_versions":[2],"features":["atlas_map","frobnicate"]}`+"\n")
	info, err := handshake.Run(t.Context(), argv, handshake.Options{Timeout: long, Env: env})
	if err != nil {
		t.Fatalf("Run() = %v", err)
	}
	var codes []string
	for _, w := range info.Warnings {
		codes = append(codes, w.Code)
	}
	want := []string{handshake.WarnUnknownFeature, handshake.WarnContinueHintMissing}
	if !reflect.DeepEqual(codes, want) {
		t.Fatalf("warning codes = %q; want %q\n%v", codes, want, info.Warnings)
	}
	if !strings.Contains(info.Warnings[0].Message, `"frobnicate"`) {
		t.Errorf("unknown_feature message = %q; want it to name the feature", info.Warnings[0].Message)
	}
}

// TestRunFailures covers every way a step that starts can fail its
// handshake, except a timeout.
func TestRunFailures(t *testing.T) {
	t.Parallel()
	var (
		failed      = protocol.ReasonHandshakeFailed
		unsupported = protocol.ReasonProtocolUnsupported
		e4          = protocol.ReasonOutputsSchemaInvalid
	)
	tests := []struct {
		name    string
		stdout  string
		env     []string // extra environment for the fake
		maxLine int
		want    error
		reason  string
		cause   string
	}{
		{"no line", "", nil, 0, handshake.ErrFailed, failed, "printed nothing on stdout"},
		{"blank lines only", "\n\r\n\n", nil, 0, handshake.ErrFailed, failed, "printed nothing on stdout"},
		{"two lines", okLine + "\n" + okLine + "\n", nil, 0, handshake.ErrFailed, failed, "printed 2 lines on stdout; a handshake is exactly one line"},
		{"a log line first", "starting\n" + okLine, nil, 0, handshake.ErrFailed, failed, "printed 2 lines"},
		{"not JSON", "hello\n", nil, 0, handshake.ErrFailed, failed, "not strict JSON"},
		{"BOM", "\ufeff" + okLine + "\n", nil, 0, handshake.ErrFailed, failed, "byte order mark"},
		{"duplicate key", `{"type":"handshake","name":"a","name":"b","version":"1","interactive":false,"protocol_versions":[2]}`, nil, 0, handshake.ErrFailed, failed, `duplicate object key "name"`},
		{"trailing data", okLine + " {}\n", nil, 0, handshake.ErrFailed, failed, "trailing data"},
		{"invalid UTF-8", line(",\"description\":\"caf\xe9\""), nil, 0, handshake.ErrFailed, failed, "invalid UTF-8"},
		{"over MaxLine", okLine + "\n", nil, 64, handshake.ErrFailed, failed, "over the limit of 64 bytes"},
		{"second line over MaxLine", okLine + "\n" + strings.Repeat("x", 4096) + "\n", nil, 1024, handshake.ErrFailed, failed, "printed 2 lines"},
		{"missing fields", `{"type":"handshake","name":"fake"}`, nil, 0, handshake.ErrFailed, failed, "(root): missing properties 'interactive', 'protocol_versions', 'version'"},
		{"wrong type", line(`,"features":"atlas_scan"`), nil, 0, handshake.ErrFailed, failed, "/features: got string, want array"},
		{"not an object", `[2]`, nil, 0, handshake.ErrFailed, failed, "(root): got array, want object"},
		{"version 2.0", `{"type":"handshake","name":"fake","version":"1","interactive":false,"protocol_versions":[2.0]}`, nil, 0, handshake.ErrFailed, failed, "does not decode"},
		{"exit 3 after a valid line", okLine + "\n", []string{exitVar + "=3", stderrVar + "=boom\n"}, 0, handshake.ErrFailed, failed, "exited with status 3"},
		{"protocol 1 only", `{"type":"handshake","name":"fake","version":"1","interactive":false,"protocol_versions":[1]}`, nil, 0, handshake.ErrProtocolUnsupported, unsupported, "protocol versions [1]; this runner speaks 2"},
		{"no protocol version", `{"type":"handshake","name":"fake","version":"1","interactive":false,"protocol_versions":[]}`, nil, 0, handshake.ErrProtocolUnsupported, unsupported, "lists no protocol version"},
		{"outputs_schema does not compile", line(`,"outputs_schema":{"type":"strin"}`), nil, 0, handshake.ErrOutputsSchemaInvalid, e4, "outputs_schema does not compile"},
		{"outputs_schema a number", line(`,"outputs_schema":42`), nil, 0, handshake.ErrOutputsSchemaInvalid, e4, "outputs_schema is a number; want an object"},
		{"outputs_schema null", line(`,"outputs_schema":null`), nil, 0, handshake.ErrOutputsSchemaInvalid, e4, "outputs_schema is null"},
		{"outputs_schema missing file", line(`,"outputs_schema":"missing.schema.json"`), nil, 0, handshake.ErrOutputsSchemaInvalid, e4, "no such file"},
		{"outputs_schema absolute path", line(`,"outputs_schema":"/etc/outputs.json"`), nil, 0, handshake.ErrOutputsSchemaInvalid, e4, "not a relative path"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			argv, env := printStep(t, tt.stdout, tt.env...)
			info, err := handshake.Run(t.Context(), argv, handshake.Options{Timeout: long, Env: env, MaxLine: tt.maxLine})
			if err == nil {
				t.Fatalf("Run() with stdout %.80q = %s, nil; want %v", tt.stdout, info.Raw, tt.want)
			}
			he := wantError(t, err, tt.want, tt.reason, tt.cause)
			if he.Path != argv[0] {
				t.Errorf("Path = %q; want %q", he.Path, argv[0])
			}
			if strings.TrimSpace(tt.stdout) != "" && len(he.Line) == 0 {
				t.Errorf("Line is empty; want the offending stdout")
			}
			if len(he.Line) > 2<<10 {
				t.Errorf("Line is %d bytes; want it cut to 2 KiB", len(he.Line))
			}
		})
	}
}

// TestErrorDiagnosis checks the text a person reads.
func TestErrorDiagnosis(t *testing.T) {
	t.Parallel()
	argv, env := printStep(t, "\ufeffstarting\n"+okLine+"\n", stderrVar+"=log line 1\nlog line 2\n")
	_, err := handshake.Run(t.Context(), argv, handshake.Options{Timeout: long, Env: env})
	wantError(t, err, handshake.ErrFailed, protocol.ReasonHandshakeFailed, "printed 2 lines")
	msg := err.Error()
	for _, want := range []string{
		"handshake: failed [handshake_failed]: the step printed 2 lines on stdout; a handshake is exactly one line\n",
		"\n  step: " + argv[0] + "\n",
		"\n  what to do: when KUSAW_HANDSHAKE=1, print exactly one JSON line on stdout and exit 0; logs go to stderr\n",
		"\n  stdout:\n---8<---\n\\ufeffstarting\n" + okLine + "\n---8<---\n",
		"\n  stderr, last lines:\n---8<---\nlog line 1\nlog line 2\n---8<---",
	} {
		if !strings.Contains(msg, want) {
			t.Errorf("Error() =\n%s\nwant it to contain %q", msg, want)
		}
	}
}

func TestRunProtocolUnsupportedSaysWhatToDo(t *testing.T) {
	t.Parallel()
	argv, env := printStep(t, `{"type":"handshake","name":"old","version":"1","interactive":false,"protocol_versions":[1]}`)
	_, err := handshake.Run(t.Context(), argv, handshake.Options{Timeout: long, Env: env})
	wantError(t, err, handshake.ErrProtocolUnsupported, protocol.ReasonProtocolUnsupported, "[1]")
	if !strings.Contains(err.Error(), "rebuild the step against protocol 2") {
		t.Errorf("Error() =\n%s\nwant it to say to rebuild against protocol 2", err)
	}
}

func TestRunOutputsSchemaInline(t *testing.T) {
	t.Parallel()
	argv, env := printStep(t, line(`,"outputs_schema":{"type":"object","required":["answer"]}`))
	info, err := handshake.Run(t.Context(), argv, handshake.Options{Timeout: long, Env: env})
	if err != nil {
		t.Fatalf("Run() = %v", err)
	}
	checkAnswerSchema(t, info)
}

// checkAnswerSchema checks that info carries the schema
// {"type":"object","required":["answer"]}, compiled.
func checkAnswerSchema(t *testing.T, info *handshake.Info) {
	t.Helper()
	if info.OutputsSchema == nil {
		t.Fatal("OutputsSchema = nil; want the compiled schema")
	}
	if err := info.OutputsSchema.Validate(map[string]any{"answer": "yes"}); err != nil {
		t.Errorf("Validate(valid outputs) = %v; want nil", err)
	}
	if err := info.OutputsSchema.Validate(map[string]any{}); err == nil {
		t.Error("Validate({}) = nil; want a missing property")
	}
}

// TestRunOutputsSchemaFile resolves outputs_schema paths against the
// folder the step really lives in. It is not parallel: see linkTestBinary.
func TestRunOutputsSchemaFile(t *testing.T) {
	root := t.TempDir()
	stepDir, linkDir := filepath.Join(root, "step"), filepath.Join(root, "links")
	for _, d := range []string{filepath.Join(stepDir, "schemas"), linkDir} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	step := linkTestBinary(t, stepDir, "step")
	link := filepath.Join(linkDir, "step")
	if err := os.Symlink(step, link); err != nil {
		t.Fatal(err)
	}
	for name, body := range map[string]string{
		"answer.json": `{"type":"object","required":["answer"]}`,
		"bad.json":    `{"type":"strin"}`,
		"dup.json":    `{"type":"object","type":"array"}`,
		"array.json":  `[]`,
	} {
		if err := os.WriteFile(filepath.Join(stepDir, "schemas", name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		name, step, schema string
		want               error // nil: the answer schema compiles
		cause              string
	}{
		{"next to the step", step, "schemas/answer.json", nil, ""},
		{"through a symbolic link", link, "schemas/answer.json", nil, ""},
		{"with .. inside", step, "schemas/../schemas/answer.json", nil, ""},
		{"does not compile", step, "schemas/bad.json", handshake.ErrOutputsSchemaInvalid, "does not compile"},
		{"not strict JSON", step, "schemas/dup.json", handshake.ErrOutputsSchemaInvalid, `duplicate object key "type"`},
		{"not an object", step, "schemas/array.json", handshake.ErrOutputsSchemaInvalid, "holds an array"},
		{"missing", link, "schemas/none.json", handshake.ErrOutputsSchemaInvalid, "no such file"},
		{"a folder", step, "schemas", handshake.ErrOutputsSchemaInvalid, "not a regular file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, env := printStep(t, line(`,"outputs_schema":"`+tt.schema+`"`))
			// Dir is elsewhere: it must not matter.
			info, err := handshake.Run(t.Context(), []string{tt.step}, handshake.Options{Timeout: long, Env: env, Dir: t.TempDir()})
			if tt.want == nil {
				if err != nil {
					t.Fatalf("Run() = %v", err)
				}
				checkAnswerSchema(t, info)
				return
			}
			wantError(t, err, tt.want, protocol.ReasonOutputsSchemaInvalid, tt.cause)
		})
	}
}

func TestRunTimeout(t *testing.T) {
	t.Parallel()
	pids := filepath.Join(t.TempDir(), "pids")
	argv, env := fakeStep(t, "hang", pidsVar+"="+pids)
	start := time.Now()
	_, err := handshake.Run(t.Context(), argv, handshake.Options{Timeout: 300 * time.Millisecond, Env: env})
	if d := time.Since(start); d > long {
		t.Errorf("Run() took %v with a timeout of 300ms", d)
	}
	wantError(t, err, handshake.ErrFailed, protocol.ReasonHandshakeFailed, "timeout: the step printed no line within 300ms and was killed")
	if !strings.Contains(err.Error(), "--handshake-timeout") {
		t.Errorf("Error() =\n%s\nwant it to name --handshake-timeout (issue 16 item 10)", err)
	}
	if errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Run() error matches context.DeadlineExceeded; a handshake timeout is the step's failure, not the caller's")
	}
	// On a loaded machine the fake may be killed before it writes its
	// pids; TestRunCancelKillsGroup checks the group without that race.
	if p, ok := readPids(t, pids); ok {
		waitGone(t, p...)
	} else {
		t.Log("the fake was killed before it wrote its pids; not checking its group")
	}
}

// TestRunCancelKillsGroup cancels once the fake and its grandchild run,
// and checks that both are gone.
func TestRunCancelKillsGroup(t *testing.T) {
	t.Parallel()
	pids := filepath.Join(t.TempDir(), "pids")
	argv, env := fakeStep(t, "hang", pidsVar+"="+pids)
	ctx, cancel := context.WithCancel(t.Context())
	returned, watched := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(watched)
		defer cancel()
		waitFile(pids, returned, long)
	}()
	_, err := handshake.Run(ctx, argv, handshake.Options{Timeout: 2 * long, Env: env})
	close(returned)
	<-watched
	he := wantError(t, err, context.Canceled, protocol.ReasonCancelled, "cancelled")
	if errors.Is(err, handshake.ErrFailed) {
		t.Errorf("Run() error matches ErrFailed; want only the context's error\n%v", he)
	}
	p, ok := readPids(t, pids)
	if !ok {
		t.Fatalf("the fake wrote no pids to %s", pids)
	}
	waitGone(t, p...)
}

// waitFile waits until name exists, done is closed or timeout passes.
func waitFile(name string, done <-chan struct{}, timeout time.Duration) {
	deadline := time.After(timeout)
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for !fileExists(name) {
		select {
		case <-done:
			return
		case <-deadline:
			return
		case <-tick.C:
		}
	}
}

// TestRunHeldOpen: the step answers and exits, but leaves a grandchild
// that holds stdout open for minutes. Run must return soon after the step
// exits, with a warning, and the grandchild must be gone.
func TestRunHeldOpen(t *testing.T) {
	t.Parallel()
	pids := filepath.Join(t.TempDir(), "pids")
	argv, env := fakeStep(t, "held-open", pidsVar+"="+pids)
	start := time.Now()
	info, err := handshake.Run(t.Context(), argv, handshake.Options{Timeout: 2 * long, Env: env})
	if d := time.Since(start); d > long {
		t.Errorf("Run() took %v; want it to return soon after the step exited", d)
	}
	if err != nil {
		t.Fatalf("Run() = %v", err)
	}
	if string(info.Raw) != okLine {
		t.Errorf("Raw = %q; want %q", info.Raw, okLine)
	}
	if len(info.Warnings) != 1 || info.Warnings[0].Code != handshake.WarnStdoutHeldOpen {
		t.Errorf("Warnings = %v; want one %s", info.Warnings, handshake.WarnStdoutHeldOpen)
	}
	p, ok := readPids(t, pids)
	if !ok {
		t.Fatalf("the fake wrote no pids to %s", pids)
	}
	waitGone(t, p...)
}

// TestRunStartFailures is not parallel: it writes executable files, and a
// fork elsewhere in the process while one is open for writing would make
// exec fail with ETXTBSY.
func TestRunStartFailures(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string, mode os.FileMode) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(body), mode); err != nil {
			t.Fatal(err)
		}
		return path
	}
	noExec := write("no-exec", "#!/bin/sh\necho '"+okLine+"'\n", 0o644)
	garbage := write("garbage", "this is not a program\n", 0o755)
	noInterp := write("no-interp", "#!/nonexistent/interpreter\n", 0o755)
	fake, env := printStep(t, okLine+"\n")
	tests := []struct {
		name        string
		argv        []string
		dir         string
		cause, hint string
	}{
		{"empty command", nil, "", "the command is empty", ""},
		{"missing file", []string{filepath.Join(dir, "missing")}, "", "no such file", ""},
		{"not executable", []string{noExec}, "", "not executable: " + noExec, "chmod +x " + noExec},
		{"a directory", []string{dir}, "", "is a directory", ""},
		{"exec format error", []string{garbage}, "", "exec format error", "#! line"},
		{"missing interpreter", []string{noInterp}, "", "exists but cannot be run: the interpreter it names is missing", "#! line"},
		{"not in PATH", []string{"kusaw-handshake-test-no-such-step"}, "", "not found in PATH", ""},
		{"missing working directory", fake, filepath.Join(dir, "nowhere"), "the step's working directory cannot be used: stat " + filepath.Join(dir, "nowhere"), "existing directory"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := handshake.Run(t.Context(), tt.argv, handshake.Options{Timeout: long, Env: env, Dir: tt.dir})
			he := wantError(t, err, handshake.ErrStart, protocol.ReasonStartFailed, tt.cause)
			if !strings.Contains(he.Hint, tt.hint) {
				t.Errorf("Hint = %q; want it to contain %q", he.Hint, tt.hint)
			}
		})
	}
}

// TestRunJoinsGoroutines checks that Run leaves no goroutine behind, also
// when it gives up on a pipe a grandchild holds. Not parallel: it counts
// the process's goroutines.
func TestRunJoinsGoroutines(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"print", "held-open"} {
		argv, env := fakeStep(t, name, stdoutVar+"="+okLine, pidsVar+"="+filepath.Join(dir, name))
		before := runtime.NumGoroutine()
		if _, err := handshake.Run(t.Context(), argv, handshake.Options{Timeout: long, Env: env}); err != nil {
			t.Fatalf("Run(%s) = %v", name, err)
		}
		deadline := time.Now().Add(30 * time.Second)
		for runtime.NumGoroutine() > before {
			if time.Now().After(deadline) {
				buf := make([]byte, 1<<16)
				t.Fatalf("Run(%s): %d goroutines before, %d after\n%s", name, before, runtime.NumGoroutine(), buf[:runtime.Stack(buf, true)])
			}
			time.Sleep(10 * time.Millisecond)
		}
		if p, ok := readPids(t, filepath.Join(dir, name)); ok {
			waitGone(t, p...)
		}
	}
}
