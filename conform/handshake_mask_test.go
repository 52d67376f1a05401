package conform

import (
	"errors"
	"strings"
	"testing"

	"kusaw.dev/step/handshake"
	"kusaw.dev/step/protocol"
	"kusaw.dev/step/sandbox"
)

// TestMaskHandshakes: what the handshakes printed reaches the report
// masked with the sandbox plan's secrets, as an attempt's record is
// (issue 11 item 1): the probes' stdout, handshake.Run's line and
// declaration, and its error, which still says what failed.
func TestMaskHandshakes(t *testing.T) {
	const secret = "s3cret-handshake-value"
	plan, err := sandbox.PrepareHandshake(&protocol.Request{}, sandbox.Options{
		Flags: sandbox.Flags{Mode: "off"}, Secrets: map[string]string{"TOKEN": secret},
	})
	if err != nil {
		t.Fatal(err)
	}
	line := `{"name":"` + secret + `"}`
	hr := &handshakeRun{
		plain:     &probeResult{stdout: []byte(line + "\n")},
		openStdin: &probeResult{stdout: []byte(line + "\n")},
		info:      &handshake.Info{Raw: []byte(line), Handshake: &protocol.Handshake{Name: secret, Version: "v-" + secret}},
		err: &handshake.Error{Err: handshake.ErrOutputsSchemaInvalid, Cause: "bad " + secret,
			Line: []byte(line), Stderr: "said " + secret},
	}
	maskHandshakes(hr, plan)
	var he *handshake.Error
	if !errors.Is(hr.err, handshake.ErrOutputsSchemaInvalid) || !errors.As(hr.err, &he) {
		t.Fatalf("masked error %v lost its condition", hr.err)
	}
	for what, s := range map[string]string{
		"plain probe": string(hr.plain.stdout), "open-stdin probe": string(hr.openStdin.stdout),
		"raw line": string(hr.info.Raw), "name": hr.info.Handshake.Name, "version": hr.info.Handshake.Version,
		"cause": he.Cause, "line": string(he.Line), "stderr": he.Stderr,
	} {
		if strings.Contains(s, secret) || !strings.Contains(s, sandbox.Mask) {
			t.Errorf("%s: %q; want the secret masked as %s", what, s, sandbox.Mask)
		}
	}
}
