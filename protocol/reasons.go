package protocol

// Reason codes the runner gives when its verdict replaces the step's own
// result. Other tools parse them: they never change.
const (
	ReasonStartFailed          = "start_failed"           // the step could not be started
	ReasonHandshakeFailed      = "handshake_failed"       // no line, more lines, bad JSON, schema violation, non-zero exit, timeout
	ReasonProtocolUnsupported  = "protocol_unsupported"   // protocol_versions lacks 2
	ReasonOutputsSchemaInvalid = "outputs_schema_invalid" // outputs_schema does not compile (E4)
	ReasonSecretNotDeclared    = "secret_not_declared"    // a secret the attempt would pass is not in needs_env
	ReasonDependencyMissing    = "dependency_missing"     // a needs_paths entry is not visible in the sandbox
	ReasonProtocolError        = "protocol_error"         // a stdout line or the result breaks the protocol
	ReasonNoResult             = "no_result"              // the process ended without a result
	ReasonOutputsTooLarge      = "outputs_too_large"      // serialized outputs over outputs_max_bytes
	ReasonOutputsInvalid       = "outputs_invalid"        // outputs violate outputs_schema or the mode's schema
	ReasonEffectsInvalid       = "effects_invalid"        // the effects plan is invalid (status retry)
	ReasonArtifactInvalid      = "artifact_invalid"       // an artifact escapes KUSAW_ARTIFACTS_DIR or does not exist
	ReasonTimeout              = "timeout"                // time_left_ms ran out (status killed)
	ReasonCancelled            = "cancelled"              // the caller cancelled (status killed)
	ReasonSandboxUnavailable   = "sandbox_unavailable"    // sandbox required but no backend works here
	ReasonPidsLimit            = "pids_limit"             // the step hit its process bound (--pids-max) and did not succeed
	ReasonMemoryLimit          = "memory_limit"           // the step went over its memory bound (--memory-max); status killed
)

// Warning is something the runner noticed and let pass: a value it
// ignored, a line it dropped, a log it cut. Code is stable; Message says
// what happened and what to do.
type Warning struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}
