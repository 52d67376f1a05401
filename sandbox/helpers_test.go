package sandbox

import (
	"fmt"
	"os"
	"os/exec"
	"time"
)

// helperEgressRunner plays a runner whose sandbox has an egress proxy: it
// starts a sandboxed sleep, prints "started", and waits to be killed.
func helperEgressRunner() int {
	self, _ := os.Executable()
	cmd := exec.Command("/bin/sleep", "600")
	pol := &Policy{Backend: BackendBwrap, Network: NetworkAllowlist, Allow: []string{"example.test"}, Self: self}
	sb, err := Wrap(cmd, pol)
	if err != nil {
		fmt.Println("wrap:", err)
		return 1
	}
	defer sb.Close()
	if err := cmd.Start(); err != nil {
		fmt.Println("start:", err)
		return 1
	}
	fmt.Println("started")
	time.Sleep(time.Minute)
	return 0
}
