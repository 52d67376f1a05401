package step

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"

	"kusaw.dev/step/request"
)

// The files the runner writes for the step to read, in the artifacts
// folder, read-only (0444), named by the step's variables. The artifacts
// folder is where the spec puts such copies (context.order.notes_path:
// "Read-only copy of notes.md in this attempt's artifacts dir"), and the
// one folder of the attempt a sandboxed step always sees.
const (
	// ConfigSnapshotFile is KUSAW_CONFIG_SNAPSHOT: the request's config, the
	// run's config as far as a local run has one.
	ConfigSnapshotFile = "config-snapshot.json"
	// CapabilitiesFile is KUSAW_REPO_CAPABILITIES: the one repo's
	// capabilities object ({} when it has none); only with one repo.
	CapabilitiesFile = "repo-capabilities.json"
	// PromptFile is KUSAW_PROMPT_FILE: a copy of the request's
	// prompt.file, when the request has one and it can be read.
	PromptFile = "prompt.md"
)

// stepFiles are the paths of the files the step's variables name; "" for
// one not written.
type stepFiles struct {
	config, capabilities, prompt string
}

// writeStepFiles writes the files of the attempt's variables into the
// artifacts folder. A prompt.file that cannot be read is a warning, and
// KUSAW_PROMPT_FILE names the request's path as it is.
func (at *attempt) writeStepFiles() error {
	dir := at.artifactsDir
	at.files.config = filepath.Join(dir, ConfigSnapshotFile)
	if err := writeReadOnly(at.files.config, append([]byte(at.req.Config), '\n')); err != nil {
		return err
	}
	if caps, ok := request.RepoCapabilities(at.req); ok {
		at.files.capabilities = filepath.Join(dir, CapabilitiesFile)
		if err := writeReadOnly(at.files.capabilities, append(caps, '\n')); err != nil {
			return err
		}
	}
	if err := at.writeSampleFiles(); err != nil {
		return err
	}
	src := request.PromptFile(at.req)
	if src == "" {
		return nil
	}
	data, err := os.ReadFile(src)
	if err != nil {
		at.warn("prompt_file_unreadable", "the request's prompt.file cannot be read, so KUSAW_PROMPT_FILE names it as it is: "+err.Error())
		return nil
	}
	at.files.prompt = filepath.Join(dir, PromptFile)
	return writeReadOnly(at.files.prompt, data)
}

// writeSampleFiles writes the files a synthesized request's sample
// context names (request.SampleFiles: triage items, a Work order's
// contract and notes), read-only, when they lie inside the artifacts
// folder and do not exist: a step of the mode finds what its request
// promises. A file anywhere else is never written.
func (at *attempt) writeSampleFiles() error {
	for path, data := range request.SampleFiles(at.req) {
		rel, err := filepath.Rel(at.artifactsDir, path)
		if err != nil || !filepath.IsLocal(rel) {
			continue
		}
		if _, err := os.Lstat(path); !errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(path, data, 0o444); err != nil {
			return err
		}
	}
	return nil
}

// writeReadOnly writes data to a new file at path with mode 0444,
// replacing one an earlier attempt left.
func writeReadOnly(path string, data []byte) error {
	if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return os.WriteFile(path, data, 0o444)
}

// fileOptions sets the variables of the step's files in eo.
func (at *attempt) fileOptions(eo *request.EnvOptions) {
	eo.ConfigSnapshot, eo.CapabilitiesFile, eo.PromptFile = at.files.config, at.files.capabilities, at.files.prompt
}
