package step_test

import (
	"fmt"
	"io"
	"os"
	"os/signal"
	"strconv"
	"strings"

	"github.com/go-json-experiment/json"

	"kusaw.dev/step/protocol"
	"kusaw.dev/step/schemas"
)

func signalIgnore(sig os.Signal)                     { signal.Ignore(sig) }
func signalNotify(c chan<- os.Signal, sig os.Signal) { signal.Notify(c, sig) }

func envInt(name string, def int) int {
	if n, err := strconv.Atoi(os.Getenv(name)); err == nil {
		return n
	}
	return def
}

// checkRequest is a step that checks every request field and KUSAW_*
// variable it was given, and fails with the list of what was wrong.
func checkRequest() {
	raw, err := io.ReadAll(os.Stdin)
	var problems []string
	if err != nil {
		problems = append(problems, "read stdin: "+err.Error())
	}
	doc, err := protocol.Parse(raw)
	if err == nil {
		err = schemas.Validate("request", doc)
	}
	if err != nil {
		problems = append(problems, "request: "+err.Error())
	}
	var req protocol.Request
	if err := json.Unmarshal(raw, &req); err != nil {
		problems = append(problems, "decode: "+err.Error())
	}
	problems = append(problems, checkEnv(&req)...)
	if len(problems) > 0 {
		result("fail", strings.Join(problems, "; "))
		return
	}
	result("ok", "request and environment agree")
}

func checkEnv(req *protocol.Request) []string {
	var labels []string
	for _, r := range req.Repos {
		labels = append(labels, r.Label)
	}
	want := map[string]string{
		"KUSAW_PROTOCOL": "2", "KUSAW_HANDSHAKE": "", "KUSAW_RUN_ID": deref(req.RunID),
		"KUSAW_TASK_ID": deref(req.TaskID), "KUSAW_STEP_ID": req.Step.ID, "KUSAW_WORKTREE": deref(req.Worktree),
		"KUSAW_ARTIFACTS_DIR": req.ArtifactsDir, "KUSAW_ATTEMPT": strconv.Itoa(req.Step.Attempt),
		"KUSAW_ITERATION": "", "KUSAW_REPOS": strings.Join(labels, ","), "KUSAW_SANDBOX": "",
	}
	var problems []string
	for name, value := range want {
		got, ok := os.LookupEnv(name)
		if !ok || got != value {
			problems = append(problems, fmt.Sprintf("%s=%q (set %v); want %q", name, got, ok, value))
		}
	}
	for _, v := range schemas.EnvVars() {
		if _, ok := os.LookupEnv(v.Name); !ok && (v.When == "handshake and attempt" || v.When == "every attempt") {
			problems = append(problems, v.Name+" is not set")
		}
	}
	if req.Limits.TimeLeftMS <= 0 || req.Limits.MaxLineBytes == nil || *req.Limits.MaxLineBytes != protocol.DefaultMaxLineBytes {
		problems = append(problems, fmt.Sprintf("limits %+v", req.Limits))
	}
	return problems
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
