package handshake

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"kusaw.dev/step/protocol"
)

// Warning codes Run gives. They are stable: other tools parse them.
const (
	WarnUnknownFeature      = "unknown_feature"       // features lists a value this runner does not know
	WarnContinueHintMissing = "continue_hint_missing" // an interactive step gives no continue_hint
	WarnStdoutHeldOpen      = "stdout_held_open"      // something the step started kept stdout or stderr open
)

// knownFeatures are the features the protocol defines, as the handshake
// schema's description of features lists them.
var knownFeatures = []string{
	"atlas_scan", "atlas_chunk", "atlas_embed", "atlas_map",
	"milestone_check", "atlas_tools", "model_variants",
}

// declarationWarnings lists what a valid handshake declares that the runner
// lets pass.
//
// The checks that need the operator's policy belong here too, once the
// sandbox package supplies it through [Options]: egress hosts the policy
// does not allow (a warning; never auto-allowed) and secrets the attempt
// would pass that needs_env does not declare (a failure,
// secret_not_declared). Without a policy Run can make neither check.
func declarationWarnings(h *protocol.Handshake) []protocol.Warning {
	var ws []protocol.Warning
	for _, f := range h.Features {
		if !slices.Contains(knownFeatures, f) {
			ws = append(ws, protocol.Warning{Code: WarnUnknownFeature, Message: fmt.Sprintf(
				"features lists %q, which this runner does not know (known: %s); it is ignored",
				f, strings.Join(knownFeatures, ", "))})
		}
	}
	if h.Interactive && h.ContinueHint == "" {
		ws = append(ws, protocol.Warning{Code: WarnContinueHintMissing, Message: "the step is interactive but gives no continue_hint; a person will not be told how to end it"})
	}
	return ws
}

// heldOpen is the warning for a step whose leftovers kept its output open
// for delay after it exited.
func heldOpen(delay time.Duration) protocol.Warning {
	return protocol.Warning{Code: WarnStdoutHeldOpen, Message: fmt.Sprintf(
		"a process the step started kept stdout or stderr open after the step exited; "+
			"the runner stopped reading after %v and killed the step's process group", delay)}
}
