package sandbox

import (
	"os"
	"os/exec"
)

// helperEgressRunner plays a runner whose sandbox has an egress proxy: it
// starts a sandboxed sleep, prints "started", and waits to be killed.
func helperEgressRunner() int {
	self, _ := os.Executable()
	cmd := exec.Command("/bin/sleep", "600")
	return startAndHang(cmd, &Policy{Backend: BackendBwrap, Network: NetworkAllowlist, Allow: []string{"example.test"}, Self: self})
}
