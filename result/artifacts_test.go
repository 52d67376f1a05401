package result_test

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"kusaw.dev/step/protocol"
	"kusaw.dev/step/result"
)

// TestCheckArtifact checks CheckArtifact as the runner calls it for
// artifact events: the error's identity and the sniffed media.
func TestCheckArtifact(t *testing.T) {
	t.Parallel()
	dir, root := artifactsFixture(t)
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		a       protocol.Artifact
		dir     string
		media   string
		wantErr error // besides result.ErrArtifactInvalid
	}{
		{name: "file", a: protocol.Artifact{Path: "ok.txt", Kind: "log"}},
		{name: "nested clean path", a: protocol.Artifact{Path: "sub/../ok.txt", Kind: "log"}},
		{name: "evidence sniffed", a: protocol.Artifact{Path: "shot.png", Kind: "evidence", Caption: "c"}, media: "image/png"},
		{name: "evidence text sniffed", a: protocol.Artifact{Path: "ok.txt", Kind: "evidence", Caption: "c"}, media: "text/plain; charset=utf-8"},
		{name: "missing", a: protocol.Artifact{Path: "nope", Kind: "log"}, wantErr: fs.ErrNotExist},
		{name: "escaping symlink", a: protocol.Artifact{Path: "escape", Kind: "log"}, wantErr: result.ErrArtifactInvalid},
		{name: "absolute", a: protocol.Artifact{Path: filepath.Join(dir, "ok.txt"), Kind: "log"}, wantErr: result.ErrArtifactInvalid},
		{name: "named pipe", a: protocol.Artifact{Path: "fifo", Kind: "evidence", Caption: "c"}, wantErr: result.ErrArtifactInvalid},
		{name: "no dir", a: protocol.Artifact{Path: "ok.txt", Kind: "log"}, dir: "-", wantErr: result.ErrArtifactInvalid},
		{name: "missing dir", a: protocol.Artifact{Path: "ok.txt", Kind: "log"}, dir: filepath.Join(root, "gone"), wantErr: fs.ErrNotExist},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			d := dir
			switch tt.dir {
			case "-":
				d = ""
			case "":
			default:
				d = tt.dir
			}
			got, err := result.CheckArtifact(tt.a, d)
			if tt.wantErr == nil {
				if err != nil || got.Media != tt.media {
					t.Errorf("CheckArtifact(%+v) = %+v, %v; want media %q", tt.a, got, err, tt.media)
				}
				return
			}
			var ae *result.ArtifactError
			if !errors.Is(err, result.ErrArtifactInvalid) || !errors.Is(err, tt.wantErr) || !errors.As(err, &ae) || ae.Path != tt.a.Path {
				t.Errorf("CheckArtifact(%+v) = %v; want an *ArtifactError matching %v", tt.a, err, tt.wantErr)
			}
		})
	}
}

// TestCheckArtifactUnreadable checks that evidence the runner cannot read
// is invalid rather than given a guessed media type.
func TestCheckArtifactUnreadable(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root reads any file")
	}
	dir, _ := artifactsFixture(t)
	must(t, os.Chmod(filepath.Join(dir, "shot.png"), 0))
	_, err := result.CheckArtifact(protocol.Artifact{Path: "shot.png", Kind: "evidence", Caption: "c"}, dir)
	if !errors.Is(err, fs.ErrPermission) || !errors.Is(err, result.ErrArtifactInvalid) {
		t.Errorf("CheckArtifact(unreadable) = %v; want a permission error", err)
	}
}

func artifactCases(root string) []checkCase {
	ai := protocol.ReasonArtifactInvalid
	art := func(fields string) string { return line(`"artifacts":[` + fields + `]`) }
	return []checkCase{
		{name: "artifacts/a file", line: art(`{"path":"ok.txt","kind":"log"}`), check: media(0, "")},
		{name: "artifacts/a symlink inside", line: art(`{"path":"inside","kind":"log"}`), check: media(0, "")},
		{name: "artifacts/a name starting with ..", line: art(`{"path":"..dots","kind":"log"}`), check: media(0, "")},
		{name: "artifacts/the dir through a symlink", line: art(`{"path":"ok.txt","kind":"log"}`),
			opts: result.Options{ArtifactsDir: filepath.Join(root, "link-to-art")}, check: media(0, "")},
		{name: "artifacts/the dir from the request", line: art(`{"path":"ok.txt","kind":"log"}`),
			opts:  result.Options{ArtifactsDir: "", Request: &protocol.Request{Mode: "pipeline", ArtifactsDir: filepath.Join(root, "art")}},
			check: media(0, "")},
		{name: "artifacts/a symlink escaping", line: art(`{"path":"escape","kind":"log"}`), status: "fail", reason: ai,
			msg: []string{`artifact "escape"`, "outside the artifacts dir"}, check: noArtifacts},
		{name: "artifacts/a symlink to a sibling sharing the prefix", line: art(`{"path":"sibling","kind":"log"}`), status: "fail", reason: ai,
			msg: []string{"art2", "outside the artifacts dir"}},
		{name: "artifacts/../", line: art(`{"path":"../secret.txt","kind":"log"}`), status: "fail", reason: ai, msg: []string{"leads out"}},
		{name: "artifacts/../ inside a path", line: art(`{"path":"sub/../../secret.txt","kind":"log"}`), status: "fail", reason: ai, msg: []string{"leads out"}},
		{name: "artifacts/no artifacts dir", line: art(`{"path":"ok.txt","kind":"log"}`), noDir: true, status: "fail", reason: ai,
			msg: []string{"no artifacts dir"}},
		{name: "artifacts/absolute", line: art(`{"path":"/etc/passwd","kind":"log"}`), status: "fail", reason: ai, msg: []string{"absolute"}},
		{name: "artifacts/empty path", line: art(`{"path":"","kind":"log"}`), status: "fail", reason: ai, msg: []string{"empty"}},
		{name: "artifacts/missing", line: art(`{"path":"nope.txt","kind":"log"}`), status: "fail", reason: ai, msg: []string{`"nope.txt"`, "no such file"}},
		{name: "artifacts/dangling symlink", line: art(`{"path":"dangling","kind":"log"}`), status: "fail", reason: ai, msg: []string{"no such file"}},
		{name: "artifacts/a directory", line: art(`{"path":"sub","kind":"log"}`), status: "fail", reason: ai, msg: []string{"a directory"}},
		{name: "artifacts/the dir itself", line: art(`{"path":".","kind":"log"}`), status: "fail", reason: ai, msg: []string{"a directory"}},
		{name: "artifacts/evidence without caption", line: art(`{"path":"shot.png","kind":"evidence"}`), status: "fail", reason: ai,
			msg: []string{"caption of 1 to 200"}},
		{name: "artifacts/evidence caption of 201", line: art(`{"path":"shot.png","kind":"evidence","caption":"` + strings.Repeat("c", 201) + `"}`),
			status: "fail", reason: ai, msg: []string{"it has 201"}},
		{name: "artifacts/evidence caption of 200", line: art(`{"path":"shot.png","kind":"evidence","caption":"` + strings.Repeat("c", 200) + `"}`),
			check: media(0, "image/png")},
		{name: "artifacts/evidence media sniffed", line: art(`{"path":"shot.png","kind":"evidence","caption":"the page"}`), check: media(0, "image/png")},
		{name: "artifacts/evidence media declared", line: art(`{"path":"ok.txt","kind":"evidence","caption":"c","media":"text/markdown"}`),
			check: media(0, "text/markdown")},
		{name: "artifacts/the valid ones are kept", line: art(`{"path":"ok.txt","kind":"log"},{"path":"nope","kind":"log"},{"path":"shot.png","kind":"evidence","caption":"c"}`),
			status: "fail", reason: ai, msg: []string{"artifacts[1]"}, check: media(1, "image/png")},
	}
}

// media checks the kept artifact i (the last one kept) and its media.
func media(i int, want string) func(*testing.T, *result.Verdict) {
	return func(t *testing.T, v *result.Verdict) {
		if len(v.Artifacts) != i+1 || v.Artifacts[i].Media != want || !slices.Equal(v.Result.Artifacts, v.Artifacts) {
			t.Errorf("Artifacts = %+v; want %d, the last of media %q", v.Artifacts, i+1, want)
		}
	}
}

func noArtifacts(t *testing.T, v *result.Verdict) {
	if len(v.Artifacts) != 0 || len(v.Result.Artifacts) != 0 {
		t.Errorf("Artifacts = %+v; want none", v.Artifacts)
	}
}
