package request_test

import (
	"encoding/json"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"strings"
	"time"

	"kusaw.dev/step/protocol"
	"kusaw.dev/step/request"
)

// A local run synthesizes its request, encodes it for the step's stdin and
// derives the attempt's environment from it.
func ExampleSynthesize() {
	out, err := os.MkdirTemp("", "attempt")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(out)
	req, err := request.Synthesize(request.Options{
		Mode:         "check",
		Config:       []byte(`{"strict": true}`),
		Worktree:     out, // a git checkout would become repos[0]
		ArtifactsDir: filepath.Join(out, "artifacts"),
		Timeout:      10 * time.Minute,
		StepName:     "lint",
	})
	if err != nil {
		log.Fatal(err)
	}
	stdin, err := request.Encode(req)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(req.Mode, req.Step.ID, req.Limits.TimeLeftMS, string(req.Config))
	fmt.Println(strings.HasPrefix(*req.RunID, "local-"), json.Valid(stdin))
	// Output:
	// check lint 600000 {"strict":true}
	// true true
}

func ExampleEnv() {
	req := &protocol.Request{
		ProtocolVersion: 2,
		RunID:           new("r-1"),
		Worktree:        new("/work/tree"),
		ArtifactsDir:    "/work/out/artifacts",
		Repos:           []protocol.Repo{{Label: "web-app"}},
		Step:            protocol.StepInfo{ID: "hello", Name: "hello", Attempt: 1},
	}
	base := []string{"PATH=/usr/bin", "KUSAW_RUN_ID=left-over"}
	for _, kv := range request.Env(base, req, request.EnvOptions{Sandbox: "bwrap"}) {
		fmt.Println(kv)
	}
	// Output:
	// PATH=/usr/bin
	// KUSAW_PROTOCOL=2
	// KUSAW_HANDSHAKE=
	// KUSAW_RUN_ID=r-1
	// KUSAW_TASK_ID=
	// KUSAW_STEP_ID=hello
	// KUSAW_WORKTREE=/work/tree
	// KUSAW_ARTIFACTS_DIR=/work/out/artifacts
	// KUSAW_ATTEMPT=1
	// KUSAW_ITERATION=
	// KUSAW_CONFIG_SNAPSHOT=
	// KUSAW_REPOS=web-app
	// KUSAW_REPO=web-app
	// KUSAW_REPO_COMMAND_ENV=null
	// KUSAW_BASE_REF_WEB_APP=
	// KUSAW_TRIAGE_ID=
	// KUSAW_SUBTASK=
	// KUSAW_CANDIDATE=
	// KUSAW_ATTEMPT_LABEL=
	// KUSAW_ATTEMPT_PROVIDER=
	// KUSAW_ATTEMPT_MODEL=
	// KUSAW_WORKFLOW=
	// KUSAW_SANDBOX=bwrap
}

func ExampleLoad() {
	raw, req, err := request.Load("../schemas/testdata/valid/request.json")
	if err != nil {
		log.Fatal(err)
	}
	// raw is the file byte for byte, for the step's stdin; Unknown keeps
	// the fields the typed core does not name.
	fmt.Println(req.Mode, *req.RunID, req.Limits.TimeLeftMS, json.Valid(raw))
	fmt.Println(string(req.Unknown))
	// Output:
	// pipeline r-1 60000 true
	// {"future_field":{"kept":true}}
}
