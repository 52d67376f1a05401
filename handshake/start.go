package handshake

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
)

// resolve returns the absolute path of the step argv names: argv[0] is
// looked up in PATH when it has no slash (exec.LookPath), and made absolute
// against the runner's working directory, not [Options.Dir]. Symbolic links
// are kept: the process runs under the name it was given.
func resolve(argv []string) (string, error) {
	if len(argv) == 0 || argv[0] == "" {
		return "", &Error{Reason: reasonFor(ErrStart), Err: ErrStart,
			Cause: "no step given: the command is empty", Hint: "name the step's executable"}
	}
	path, err := exec.LookPath(argv[0])
	if err != nil {
		return "", startError(argv[0], err)
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", startError(argv[0], err)
	}
	return abs, nil
}

// checkDir returns an error when dir, the step's working directory, is
// set but cannot be used. The child's failure to enter it would otherwise
// look like a missing step.
func checkDir(dir string) error {
	if dir == "" {
		return nil
	}
	fi, err := os.Stat(dir)
	if err == nil && !fi.IsDir() {
		err = fmt.Errorf("%s is not a directory", dir)
	}
	if err != nil {
		return &fs.PathError{Op: "chdir", Path: dir, Err: err}
	}
	return nil
}

// startError explains why the step at path could not be started.
func startError(path string, err error) *Error {
	cause, hint := startCause(path, err)
	return &Error{Reason: reasonFor(ErrStart), Err: ErrStart, Cause: cause, Hint: hint, Path: path}
}

// startCause names the usual reasons a program does not start, and what to
// do about each.
func startCause(path string, err error) (cause, hint string) {
	var pe *fs.PathError
	switch {
	case errors.As(err, &pe) && pe.Op == "chdir":
		return fmt.Sprintf("the step's working directory cannot be used: %v", pe.Err), "give an existing directory as the step's working directory"
	case errors.Is(err, exec.ErrDot):
		return fmt.Sprintf("%s is found through PATH in the current directory, which is not searched", path), "name it by a path, e.g. ./" + path
	case errors.Is(err, exec.ErrNotFound):
		return fmt.Sprintf("%s: not found in PATH", path), "give the step's path, or add its folder to PATH"
	case isExecFormat(err):
		return fmt.Sprintf("exec format error: %s is not a program for this machine and has no #! line", path), "build the step for this OS and architecture, or start the script with a #! line"
	case isTextBusy(err):
		return fmt.Sprintf("%s is open for writing (text file busy)", path), "start it again once whatever writes it has finished"
	case errors.Is(err, fs.ErrNotExist):
		return notExistCause(path, err)
	case errors.Is(err, fs.ErrPermission):
		return permissionCause(path, err)
	}
	return fmt.Sprintf("cannot start %s: %v", path, err), ""
}

// notExistCause tells a missing file from a file whose interpreter is
// missing (the program of a #! line, or the dynamic loader of a binary):
// execve says ENOENT for both.
func notExistCause(path string, err error) (cause, hint string) {
	if _, serr := os.Stat(path); serr == nil {
		return fmt.Sprintf("%s exists but cannot be run: the interpreter it names is missing (%v)", path, err), "fix the #! line or install its interpreter; for a binary, build it for this system"
	}
	return fmt.Sprintf("no such file: %s", path), "check the step's path"
}

// permissionCause tells a directory from a file without an execute bit.
func permissionCause(path string, err error) (cause, hint string) {
	if fi, serr := os.Stat(path); serr == nil && fi.IsDir() {
		return fmt.Sprintf("%s is a directory", path), "name the step's executable, not its folder"
	}
	return fmt.Sprintf("not executable: %s (%v)", path, err), "chmod +x " + path
}
