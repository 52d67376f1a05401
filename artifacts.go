package step

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"kusaw.dev/step/protocol"
	"kusaw.dev/step/result"
)

// Bounds on the artifacts a step publishes with events: however many
// events it sends, the runner keeps at most this many distinct artifacts,
// of at most this many bytes in all, and warns about the rest.
const (
	maxEventArtifacts     = 1000
	maxEventArtifactBytes = 1 << 20
)

// eventArtifacts are the distinct artifacts (by cleaned path) a step
// published with events, in the order first published, bounded. A later
// event for the same path is ignored.
type eventArtifacts struct {
	list    []protocol.Artifact
	seen    map[string]bool
	bytes   int
	dropped int // artifact events past the bounds
}

// add keeps a, unless its path was already published or the bounds are
// reached.
func (e *eventArtifacts) add(a protocol.Artifact) {
	key := filepath.Clean(a.Path)
	if e.seen[key] {
		return
	}
	size := len(a.Path) + len(a.Kind) + len(a.Caption) + len(a.Media) + len(a.Page) + len(a.Repo) + len(a.Title)
	if len(e.list) >= maxEventArtifacts || e.bytes+size > maxEventArtifactBytes {
		e.dropped++
		return
	}
	if e.seen == nil {
		e.seen = make(map[string]bool)
	}
	// Kept past the event: own the strings, whatever buffer they came from.
	a.Path, a.Kind, a.Caption = strings.Clone(a.Path), strings.Clone(a.Kind), strings.Clone(a.Caption)
	a.Media, a.Page, a.Repo, a.Title = strings.Clone(a.Media), strings.Clone(a.Page), strings.Clone(a.Repo), strings.Clone(a.Title)
	e.seen[strings.Clone(key)] = true
	e.bytes += size
	e.list = append(e.list, a)
}

// openArtifactsDir holds the artifacts folder open from before the step
// runs: every artifact resolves beneath that very folder, whatever the
// step does to its path.
func (at *attempt) openArtifactsDir() error {
	d, err := result.OpenArtifactsDir(at.artifactsDir)
	if err != nil {
		return fmt.Errorf("artifacts folder: %w", err)
	}
	at.artDir = d
	return nil
}

func (at *attempt) closeArtifactsDir() {
	if at.artDir != nil {
		at.artDir.Close()
		at.artDir = nil
	}
}

// checkArtifact checks an artifact beneath the folder held open; a path
// that holds a secret is refused, since the record would name the file
// by its masked path, which does not exist.
func (at *attempt) checkArtifact(a protocol.Artifact) (protocol.Artifact, error) {
	if at.masks() && at.plan.MaskString(a.Path) != a.Path {
		return a, &result.ArtifactError{Path: a.Path, Reason: "the path holds a secret, and the record would name a file that does not exist: name the file without it"}
	}
	checked, err := result.CheckArtifactIn(a, at.artDir)
	if err != nil && at.artDir != nil && at.artDir.Replaced() {
		err = fmt.Errorf("%w (the artifacts folder the runner created was removed or replaced during the attempt; artifacts are read only from that folder)", err)
	}
	return checked, err
}

// refuseSecretArtifacts drops the result's artifacts whose path holds a
// secret, and fails the attempt for them (artifact_invalid).
func (at *attempt) refuseSecretArtifacts() {
	rec := at.rec
	if !at.masks() || len(rec.Artifacts) == 0 {
		return
	}
	var kept []protocol.Artifact
	for _, a := range rec.Artifacts {
		if _, err := at.checkArtifact(a); err != nil {
			at.artifactInvalid("an artifact of the result is invalid: " + err.Error())
			continue
		}
		kept = append(kept, a)
	}
	rec.Artifacts = kept
}

// artifactInvalid fails the attempt with artifact_invalid, unless it
// already failed for a weightier reason.
func (at *attempt) artifactInvalid(msg string) {
	rec := at.rec
	if rec.ReasonCode == protocol.ReasonProtocolError || rec.ReasonCode == protocol.ReasonArtifactInvalid {
		return
	}
	rec.Status, rec.ReasonCode, rec.Message = protocol.StatusFail, protocol.ReasonArtifactInvalid, msg
}

// checkEventArtifacts checks the artifacts the step published with events,
// once it has ended and the files are final, each distinct path once, and
// records the valid ones the result does not list. An invalid one fails
// the attempt unless the result already failed it with a weightier reason.
func (at *attempt) checkEventArtifacts(e *eventArtifacts) {
	rec := at.rec
	listed := make(map[string]bool)
	for _, a := range rec.Artifacts {
		listed[filepath.Clean(a.Path)] = true
	}
	for _, a := range e.list {
		if listed[filepath.Clean(a.Path)] {
			continue // the result's own check covered it
		}
		checked, err := at.checkArtifact(a)
		if err != nil {
			at.artifactInvalid("an artifact event is invalid: " + err.Error())
			continue
		}
		rec.Artifacts = append(rec.Artifacts, checked)
	}
	if e.dropped > 0 {
		at.warn("artifacts_dropped", fmt.Sprintf("the step published more than %d distinct artifacts (or %d bytes of them) with events; %d later artifact events were not kept or checked", maxEventArtifacts, maxEventArtifactBytes, e.dropped))
	}
}

// removePlantedLink removes a symlink the step put where the runner had
// created the artifacts folder, so the attempt folder keeps no link into
// the host (with --sandbox off a step can swap the folder for a link to
// /; with a sandbox it is a mount point and cannot).
func (at *attempt) removePlantedLink() {
	if at.artDir == nil || !at.artDir.Replaced() {
		return
	}
	path := at.artDir.Path()
	fi, err := os.Lstat(path)
	if err != nil || fi.Mode()&os.ModeSymlink == 0 {
		at.warn("artifacts_dir_replaced", fmt.Sprintf("the step removed or replaced the artifacts folder %s; artifacts were read only from the folder the runner created", path))
		return
	}
	target, _ := os.Readlink(path)
	msg := fmt.Sprintf("the step replaced the artifacts folder %s with a symlink to %s; the runner removed the link, and read artifacts only from the folder it had created", path, target)
	if err := os.Remove(path); err != nil {
		msg = fmt.Sprintf("the step replaced the artifacts folder %s with a symlink to %s, which the runner could not remove (%v); artifacts were read only from the folder it had created", path, target, err)
	}
	at.warn("artifacts_dir_replaced", msg)
}
