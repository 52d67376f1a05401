package step

import (
	"errors"
	"fmt"
	"path/filepath"

	"kusaw.dev/step/attemptdir"
	"kusaw.dev/step/request"
)

// ErrPreviousRunning is returned (wrapped) by [Run] when [Attempt.After]
// names an attempt that is still running.
var ErrPreviousRunning = errors.New("the previous attempt is still running")

// settleRequest makes the request the step gets fit its attempt folder,
// which the attempt now holds:
//
//   - the notes pending in the folder, and in the previous attempt's
//     folder ([Attempt.After]), join context.notes;
//   - after a previous attempt, step.attempt counts up from its request's;
//   - an artifacts_dir inside another attempt folder (a replayed request)
//     becomes this folder's artifacts/, with a warning, so an attempt never
//     writes into another's files.
//
// A request that needs none of this reaches the step byte for byte.
func (at *attempt) settleRequest() error {
	changed, err := at.linkPrevious()
	if err != nil {
		return err
	}
	notes, err := TakePendingNotes(at.a.OutDir)
	if err != nil {
		return fmt.Errorf("pending notes: %w", err)
	}
	at.carried = append(at.carried, notes...)
	if len(at.carried) > 0 {
		at.req.Context.Notes = append(at.req.Context.Notes, at.carried...)
		changed = true
	}
	if at.moveArtifacts() {
		changed = true
	}
	if !changed {
		return nil
	}
	raw, err := request.Encode(at.req)
	if err != nil {
		at.pendUntold()
		return err
	}
	at.a.Request = raw
	return nil
}

// linkPrevious links the attempt to the previous one, when there is one: it
// takes its pending notes and counts step.attempt up. It reports whether
// the request changed.
func (at *attempt) linkPrevious() (bool, error) {
	if at.a.After == "" {
		return false, nil
	}

	prev, err := attemptdir.Read(at.a.After)
	if err != nil {
		return false, fmt.Errorf("--after: %w", err)
	}
	if prev.State == attemptdir.Running {
		return false, fmt.Errorf("--after %s: %w", prev.Dir, ErrPreviousRunning)
	}
	at.rec.After, _ = filepath.Abs(prev.Dir)
	if prev.Request != nil {
		if prevReq, err := request.Decode(prev.Request); err == nil && prevReq.Step.Attempt >= at.req.Step.Attempt {
			at.req.Step.Attempt = prevReq.Step.Attempt + 1
		}
	}
	notes, err := TakePendingNotes(prev.Dir)
	if err != nil {
		return false, fmt.Errorf("pending notes of %s: %w", prev.Dir, err)
	}
	at.carried = notes
	return true, nil
}

// moveArtifacts points an artifacts_dir that lies in another attempt's
// folder at this folder's artifacts/ instead, and reports whether it did.
func (at *attempt) moveArtifacts() bool {
	owner := attemptdir.Owner(at.req.ArtifactsDir)
	if owner == "" || owner == at.a.OutDir {
		return false
	}
	moved := at.path(attemptdir.Artifacts)
	at.warn("artifacts_dir_moved", fmt.Sprintf("the request's artifacts_dir %s lies in another attempt's folder (%s); this attempt uses %s instead", at.req.ArtifactsDir, owner, moved))
	at.req.ArtifactsDir = moved
	return true
}

// pendUntold puts the carried notes back among the folder's pending notes
// when the step was not given them (it never started), for the attempt
// after this one.
func (at *attempt) pendUntold() {
	if len(at.carried) == 0 || len(at.rec.Notes) > 0 {
		return
	}
	if err := PendNotes(at.a.OutDir, at.carried); err != nil {
		at.warn("notes_not_kept", "could not keep the notes the step was not given: "+err.Error())
	}
	at.carried = nil
}
