package handshake

import (
	"os"
	"strconv"
	"strings"

	"kusaw.dev/step/protocol"
	"kusaw.dev/step/schemas"
)

// handshakeVars is the "When" of the rows of the environment table that are
// set during the handshake.
const handshakeVars = "handshake and attempt"

// sandboxVar is always set, "reserved names win" says the table; Env leaves
// it empty, and Run sets it to [Options.Sandbox] when it sandboxes the step.
const sandboxVar = "KUSAW_SANDBOX"

// Env returns the environment of a handshake: base without any KUSAW_*
// variable, then every variable the protocol's environment table marks
// "handshake and attempt" (see schemas.EnvVars), in the table's order, and
// KUSAW_SANDBOX. KUSAW_PROTOCOL is 2 and KUSAW_HANDSHAKE is 1; the others
// (KUSAW_RUN_ID, KUSAW_WORKTREE, ...) are set but empty, as the table says
// they are during a handshake, so a step never sees a value inherited from
// the runner's own environment. A nil base means os.Environ().
func Env(base []string) []string {
	if base == nil {
		base = os.Environ()
	}
	env := make([]string, 0, len(base)+16)
	for _, kv := range base {
		if !strings.HasPrefix(kv, "KUSAW_") {
			env = append(env, kv)
		}
	}
	for _, v := range schemas.EnvVars() {
		if v.When == handshakeVars {
			env = append(env, v.Name+"="+handshakeValue(v.Name))
		}
	}
	return append(env, sandboxVar+"=")
}

// handshakeValue is the value of a "handshake and attempt" variable during
// the handshake.
func handshakeValue(name string) string {
	switch name {
	case "KUSAW_PROTOCOL":
		return strconv.Itoa(protocol.Version)
	case "KUSAW_HANDSHAKE":
		return "1"
	}
	return ""
}
