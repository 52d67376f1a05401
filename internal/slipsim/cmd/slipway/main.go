// Command slipway is the strict Slipway CLI simulator of package slipsim,
// built by tests; it is not the Slipway CLI.
package main

import (
	"os"

	"kusaw.dev/step/internal/slipsim"
)

func main() {
	os.Exit(slipsim.Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr, os.Getenv))
}
