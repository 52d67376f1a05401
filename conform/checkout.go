package conform

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
)

// gitCheckout makes dir a Git checkout with one commit of what is in it,
// as a factory's worktree is: a step that observes Git (the slipway step
// kind does) refuses a plain folder. It runs git with the operator's and
// the system's config ignored and a fixed identity and date, so the
// checkout is the same everywhere. Without git on PATH the folder stays
// plain: the steps that need Git then say so themselves.
func gitCheckout(dir string) error {
	if _, err := exec.LookPath("git"); err != nil {
		return nil
	}
	env := append(os.Environ(), "GIT_CONFIG_GLOBAL="+os.DevNull, "GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_NAME=kusaw-step conform", "GIT_AUTHOR_EMAIL=conform@kusaw.invalid",
		"GIT_COMMITTER_NAME=kusaw-step conform", "GIT_COMMITTER_EMAIL=conform@kusaw.invalid",
		"GIT_AUTHOR_DATE=2026-01-01T00:00:00Z", "GIT_COMMITTER_DATE=2026-01-01T00:00:00Z")
	for _, args := range [][]string{{"init", "-q"}, {"add", "-A"}, {"commit", "-q", "--no-gpg-sign", "-m", "conform worktree"}} {
		cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
		cmd.Env = env
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("git %s in the scratch worktree: %v: %s", strings.Join(args, " "), err, strings.TrimSpace(string(out)))
		}
	}
	return nil
}
