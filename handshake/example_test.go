package handshake_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"kusaw.dev/step/handshake"
)

// Run asks a step who it is. A failed handshake is an *Error whose Reason
// is the protocol's reason code and whose Error method is a diagnosis for
// a person.
func ExampleRun() {
	ctx := context.Background()
	info, err := handshake.Run(ctx, []string{"./my-step"}, handshake.Options{Timeout: 5 * time.Second})
	var he *handshake.Error
	if errors.As(err, &he) {
		fmt.Fprintln(os.Stderr, he) // the diagnosis, over several lines
		fmt.Println("verdict: fail,", he.Reason)
		return
	}
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(info.Handshake.Name, info.Handshake.Version)
	for _, w := range info.Warnings {
		fmt.Printf("warning: %s: %s\n", w.Code, w.Message)
	}
}

// Env is the environment a handshake runs in: the runner's own KUSAW_*
// variables are removed, and those the protocol sets during a handshake
// are added.
func ExampleEnv() {
	for _, kv := range handshake.Env([]string{"PATH=/usr/bin", "KUSAW_RUN_ID=run-7"}) {
		fmt.Println(kv)
	}
	// Output:
	// PATH=/usr/bin
	// KUSAW_PROTOCOL=2
	// KUSAW_HANDSHAKE=1
	// KUSAW_RUN_ID=
	// KUSAW_TASK_ID=
	// KUSAW_STEP_ID=
	// KUSAW_WORKTREE=
	// KUSAW_ARTIFACTS_DIR=
	// KUSAW_ATTEMPT=
	// KUSAW_ITERATION=
	// KUSAW_CONFIG_SNAPSHOT=
	// KUSAW_SANDBOX=
}
