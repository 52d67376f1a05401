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
// no ".." that leads out), stay inside artifactsDir once every symlink
// under it is resolved, and name a regular file. Kind evidence needs a
// caption of 1 to [MaxCaption] characters, and gets its media type sniffed
// from the file's first 512 bytes (net/http.DetectContentType) when it
// gives none. It returns the artifact with its media, or an
// [*ArtifactError].
//
// The path is cleaned before it is resolved, as filepath.Join does: the
// file checked is the file filepath.Join(artifactsDir, a.Path) names.
// artifactsDir itself is resolved now, symlinks and all; a runner that
// must not follow what a step may since have planted there opens it with
// [OpenArtifactsDir] before the step runs and calls [CheckArtifactIn].
func CheckArtifact(a protocol.Artifact, artifactsDir string) (protocol.Artifact, error) {
	if err := checkPath(a.Path); err != nil {
		return a, err
	}
	if artifactsDir == "" {
		return a, &ArtifactError{Path: a.Path, Reason: "there is no artifacts dir to find it in"}
	}
	d, err := openResolved(artifactsDir)
	if err != nil {
		return a, &ArtifactError{Path: a.Path, Reason: fmt.Sprintf("the artifacts dir %s cannot be opened: %v", artifactsDir, err), Err: err}
	}
	defer d.Close()
	return CheckArtifactIn(a, d)
}

// CheckArtifactIn is [CheckArtifact] beneath the folder d holds open:
// the path resolves inside that very folder, whatever its path names now
// (openat2 RESOLVE_BENEATH on Linux), and the file is opened only after
// it is known to be a regular file.
func CheckArtifactIn(a protocol.Artifact, d *ArtifactsDir) (protocol.Artifact, error) {
	if err := checkPath(a.Path); err != nil {
		return a, err
	}
	if d == nil {
		return a, &ArtifactError{Path: a.Path, Reason: "there is no artifacts dir to find it in"}
	}
	f, err := d.open(a.Path)
	if err != nil {
		return a, err
	}
	defer f.Close()
	if a.Kind != "evidence" {
		return a, nil
	}
	if reason := captionProblem(a.Caption); reason != "" {
		return a, &ArtifactError{Path: a.Path, Reason: reason}
	}
	if a.Media == "" {
		media, err := sniff(f)
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

// checkPath checks the form of an artifact's path.
func checkPath(p string) error {
	bad := func(reason string) error { return &ArtifactError{Path: p, Reason: reason} }
	switch {
	case p == "":
		return bad("the path is empty; give a file's path relative to the artifacts dir")
	case strings.HasPrefix(p, "/") || filepath.IsAbs(p):
		return bad("the path is absolute; give it relative to the artifacts dir")
	case !filepath.IsLocal(p):
		return bad("the path leads out of the artifacts dir; give it relative to the artifacts dir, without ..")
	case strings.IndexByte(p, 0) >= 0:
		return bad("the path holds a NUL byte")
	}
	return nil
}

// ArtifactsDir is an artifacts folder held open, so that artifacts
// resolve beneath that very folder even after its path was replaced (a
// step that swapped it for a symlink to / gains nothing).
type ArtifactsDir struct {
	f    *os.File
	path string // the path it was opened at
}

// OpenArtifactsDir opens the artifacts folder at path, which must be a
// directory and not a symlink (O_DIRECTORY|O_NOFOLLOW); the folders above
// it may be symlinks. The runner opens it before the step runs. Close it
// when done.
func OpenArtifactsDir(path string) (*ArtifactsDir, error) {
	f, err := openDirNoFollow(path)
	if err != nil {
		return nil, err
	}
	return &ArtifactsDir{f: f, path: path}, nil
}

// openResolved opens dir after resolving every symlink of its path.
func openResolved(dir string) (*ArtifactsDir, error) {
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return nil, err
	}
	return OpenArtifactsDir(real)
}

// Path returns the path the folder was opened at.
func (d *ArtifactsDir) Path() string { return d.path }

// Close closes the folder.
func (d *ArtifactsDir) Close() error { return d.f.Close() }

// Replaced reports whether Path no longer names the folder held open:
// it was removed, renamed, or replaced (by a symlink, say).
func (d *ArtifactsDir) Replaced() bool {
	held, err := d.f.Stat()
	if err != nil {
		return true
	}
	now, err := os.Lstat(d.path)
	return err != nil || !os.SameFile(held, now)
}

// open opens the regular file rel names beneath d, or returns an
// *ArtifactError saying why it cannot.
func (d *ArtifactsDir) open(rel string) (*os.File, error) {
	bad := func(reason string, err error) (*os.File, error) {
		return nil, &ArtifactError{Path: rel, Reason: reason, Err: err}
	}
	f, fi, err := d.openBeneath(filepath.Clean(rel))
	switch {
	case errors.Is(err, errEscapes):
		return bad(fmt.Sprintf("it resolves to %s, outside the artifacts dir %s", d.escapeTarget(rel), d.path), nil)
	case errors.Is(err, fs.ErrNotExist) && fi == nil:
		return bad("no such file in the artifacts dir (or a symlink to a missing file)", err)
	case fi == nil && err != nil:
		return bad("cannot be resolved: "+err.Error(), err)
	case !fi.Mode().IsRegular():
		return bad("it is "+fileType(fi)+", not a regular file", nil)
	case err != nil:
		return bad("cannot be read: "+err.Error(), err)
	}
	return f, nil
}

// openByName resolves rel under where the folder is now, by name, for
// systems without openat2: a step that swaps files between this check
// and the open may still win there.
func (d *ArtifactsDir) openByName(rel string) (*os.File, fs.FileInfo, error) {
	dir := d.realPath()
	file, err := filepath.EvalSymlinks(filepath.Join(dir, rel))
	if err != nil {
		return nil, nil, err
	}
	if !within(dir, file) {
		return nil, nil, errEscapes
	}
	fi, err := os.Stat(file)
	if err != nil || !fi.Mode().IsRegular() {
		return nil, fi, err
	}
	f, err := os.OpenFile(file, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, fi, err
	}
	if now, err := f.Stat(); err != nil || !os.SameFile(fi, now) {
		f.Close()
		return nil, fi, fmt.Errorf("%s changed while it was checked", rel)
	}
	return f, fi, nil
}

// errEscapes is what openBeneath returns for a path that leads out.
var errEscapes = errors.New("leads out of the artifacts dir")

// escapeTarget says, for the message only, where rel leads: the path
// is resolved by name here, and nothing is opened.
func (d *ArtifactsDir) escapeTarget(rel string) string {
	file, err := filepath.EvalSymlinks(filepath.Join(d.realPath(), rel))
	if err != nil {
		return "a place it cannot reach"
	}
	return file
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

// sniff returns the media type of an open regular file from its first
// bytes.
func sniff(f *os.File) (string, error) {
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
	check := func(a protocol.Artifact) (protocol.Artifact, error) { return CheckArtifact(a, dir) }
	if c.opts.Artifacts != nil {
		check = func(a protocol.Artifact) (protocol.Artifact, error) { return CheckArtifactIn(a, c.opts.Artifacts) }
	}
	var kept []protocol.Artifact
	var bad []string
	for i, a := range c.res.Artifacts {
		checked, err := check(a)
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
