//go:build !linux

package sandbox

import "os"

// SuperviseCommand is the runner's hidden subcommand that [Wrap] puts
// between the runner and bwrap on Linux; elsewhere it is never used.
const SuperviseCommand = "__sandbox"

// RunSupervisor stands between the runner and bwrap on Linux; elsewhere
// it returns [ErrUnsupported].
func RunSupervisor(args []string, stdin, stdout, stderr *os.File) (int, error) {
	return 2, ErrUnsupported
}
