//go:build !linux

package sandbox

import "os"

// RunInit is the sandbox's init on Linux; elsewhere it returns
// [ErrUnsupported].
func RunInit(args []string, stdin, stdout, stderr *os.File) (int, error) {
	return 2, ErrUnsupported
}
