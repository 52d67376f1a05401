package result

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"unicode/utf8"

	"kusaw.dev/step/protocol"
)

// MaxCaption is the most characters an evidence caption may have.
const MaxCaption = 200

// sniffBytes is how much of a file net/http.DetectContentType reads.
const sniffBytes = 512

// ErrArtifactInvalid is the condition behind every [*ArtifactError]
// [CheckArtifact] returns.
var ErrArtifactInvalid = errors.New("artifact invalid")

// ArtifactError says why an artifact is invalid. It matches
// [ErrArtifactInvalid] with errors.Is, and its Err, if any, too.
type ArtifactError struct {
	Path   string // the artifact's path as the step gave it
	Reason string // why it is invalid, lower case
	Err    error  // the error behind Reason, e.g. one matching fs.ErrNotExist; may be nil
}

// Error says which artifact and why: artifact "x.png": reason.
func (e *ArtifactError) Error() string {
	return fmt.Sprintf("artifact %s: %s", quoteCut(e.Path), e.Reason)
}

// Is reports whether target is [ErrArtifactInvalid].
func (e *ArtifactError) Is(target error) bool { return target == ErrArtifactInvalid }

// Unwrap returns the error behind the reason, or nil.
func (e *ArtifactError) Unwrap() error { return e.Err }

// CheckArtifact checks an artifact a step published, in its result or in an
// artifact event. Its path must be relative (not empty, no leading "/",
// no ".." that leads out), stay inside artifactsDir once every symlink of
// both is resolved, and name a regular file. Kind evidence needs a caption
// of 1 to [MaxCaption] characters, and gets its media type sniffed from
// the file's first 512 bytes (net/http.DetectContentType) when it gives
// none. It returns the artifact with its media, or an [*ArtifactError].
//
// The path is cleaned before it is resolved, as filepath.Join does: the
// file checked is the file filepath.Join(artifactsDir, a.Path) names.
func CheckArtifact(a protocol.Artifact, artifactsDir string) (protocol.Artifact, error) {
	file, err := resolve(a.Path, artifactsDir)
	if err != nil {
		return a, err
	}
	if a.Kind != "evidence" {
		return a, nil
	}
	if reason := captionProblem(a.Caption); reason != "" {
		return a, &ArtifactError{Path: a.Path, Reason: reason}
	}
	if a.Media == "" {
		media, err := sniff(file)
		if err != nil {
			return a, &ArtifactError{Path: a.Path, Reason: "cannot be read: " + err.Error(), Err: err}
		}
		a.Media = media
	}
	return a, nil
}

func captionProblem(caption string) string {
	want := fmt.Sprintf("kind evidence needs a caption of 1 to %d characters", MaxCaption)
	if strings.TrimSpace(caption) == "" {
		return want + "; it has none"
	}
	if n := utf8.RuneCountInString(caption); n > MaxCaption {
		return fmt.Sprintf("%s; it has %d", want, n)
	}
	return ""
}

// resolve returns the real path of the regular file p names inside dir.
func resolve(p, dir string) (string, error) {
	bad := func(reason string, err error) (string, error) {
		return "", &ArtifactError{Path: p, Reason: reason, Err: err}
	}
	switch {
	case p == "":
		return bad("the path is empty; give a file's path relative to the artifacts dir", nil)
	case strings.HasPrefix(p, "/") || filepath.IsAbs(p):
		return bad("the path is absolute; give it relative to the artifacts dir", nil)
	case !filepath.IsLocal(p):
		return bad("the path leads out of the artifacts dir; give it relative to the artifacts dir, without ..", nil)
	case dir == "":
		return bad("there is no artifacts dir to find it in", nil)
	}
	realDir, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return bad(fmt.Sprintf("the artifacts dir %s cannot be resolved: %v", dir, err), err)
	}
	file, err := filepath.EvalSymlinks(filepath.Join(realDir, p))
	if errors.Is(err, fs.ErrNotExist) {
		return bad("no such file in the artifacts dir (or a symlink to a missing file)", err)
	}
	if err != nil {
		return bad("cannot be resolved: "+err.Error(), err)
	}
	if !within(realDir, file) {
		return bad(fmt.Sprintf("it resolves to %s, outside the artifacts dir %s", file, realDir), nil)
	}
	fi, err := os.Stat(file)
	if err != nil {
		return bad("cannot be read: "+err.Error(), err)
	}
	if !fi.Mode().IsRegular() {
		return bad("it is "+fileType(fi)+", not a regular file", nil)
	}
	return file, nil
}

// within reports whether path is dir or inside it. Both are clean and
// free of symlinks; a sibling such as /a/bc of /a/b is not inside.
func within(dir, path string) bool {
	rel, err := filepath.Rel(dir, path)
	if err != nil || filepath.IsAbs(rel) {
		return false
	}
	return rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

func fileType(fi fs.FileInfo) string {
	switch t := fi.Mode().Type(); {
	case t&fs.ModeDir != 0:
		return "a directory"
	case t&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case t&fs.ModeSocket != 0:
		return "a socket"
	case t&fs.ModeDevice != 0:
		return "a device"
	default:
		return "a " + t.String() + " file"
	}
}

// sniff returns the media type of a regular file from its first bytes. It
// opens without blocking and checks the open file again, so a file swapped
// for a named pipe since resolve cannot hang the runner.
func sniff(file string) (string, error) {
	f, err := os.OpenFile(file, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return "", err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return "", err
	}
	if !fi.Mode().IsRegular() {
		return "", fmt.Errorf("%s is %s, not a regular file", file, fileType(fi))
	}
	buf := make([]byte, sniffBytes)
	n, err := io.ReadFull(f, buf)
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) {
		return "", err
	}
	return http.DetectContentType(buf[:n]), nil
}

// checkArtifacts keeps the result's valid artifacts; any invalid one fails
// the result with artifact_invalid.
func (c *checker) checkArtifacts() {
	dir := c.opts.ArtifactsDir
	if dir == "" && c.opts.Request != nil {
		dir = c.opts.Request.ArtifactsDir
	}
	var kept []protocol.Artifact
	var bad []string
	for i, a := range c.res.Artifacts {
		checked, err := CheckArtifact(a, dir)
		if err != nil {
			bad = append(bad, fmt.Sprintf("artifacts[%d]: %v", i, err))
			continue
		}
		kept = append(kept, checked)
	}
	c.res.Artifacts, c.v.Artifacts = kept, kept
	if len(bad) == 0 {
		return
	}
	msg := strings.Join(bad[:min(len(bad), 3)], "; ")
	if len(bad) > 3 {
		msg += fmt.Sprintf(" (and %d more)", len(bad)-3)
	}
	c.fail(protocol.ReasonArtifactInvalid, msg)
}
