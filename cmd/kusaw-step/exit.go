package main

import (
	"errors"
	"fmt"
)

// Exit statuses, one table for the whole command.
const (
	exitOK      = 0 // the verdict is ok, or the command did what it was asked
	exitFailed  = 1 // any other verdict; an invalid document
	exitUsage   = 2 // the command line was wrong
	exitRunner  = 3 // the runner itself failed, not the step
	exitUnknown = exitRunner
)

// exitError carries an exit status with the error that caused it.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

// errSilent marks an error whose message was already printed.
var errSilent = errors.New("already reported")

// errSilentUsage: usage was printed for a bare invocation.
var errSilentUsage = &exitError{code: exitUsage, err: errSilent}

func usageErrorf(format string, args ...any) error {
	return &exitError{code: exitUsage, err: fmt.Errorf(format, args...)}
}

func failed(err error) error { return &exitError{code: exitFailed, err: err} }

// exitCode maps an error from run to the process's exit status.
func exitCode(err error) int {
	if err == nil {
		return exitOK
	}
	var ee *exitError
	if errors.As(err, &ee) {
		return ee.code
	}
	return exitUnknown
}
