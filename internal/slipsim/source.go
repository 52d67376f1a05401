package slipsim

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"
)

// levelMarker must be the first nonempty line of a Change Issue's body.
const levelMarker = "<!-- slipway-level: change/v2 -->"

// sectionRoles are the roles an issue-backed Run must have.
var sectionRoles = []string{"outcome", "requirements", "acceptance_examples", "constraints", "non_goals"}

// framed is a domain-separated digest: each field prefixed by its length
// as eight big-endian bytes.
func framed(fields ...string) string {
	h := sha256.New()
	var n [8]byte
	for _, f := range fields {
		binary.BigEndian.PutUint64(n[:], uint64(len(f)))
		h.Write(n[:])
		h.Write([]byte(f))
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil))
}

// CommentDigest is the body_sha256 a source manifest gives each section
// comment: framed("slipway-comment-body/v1", body with CRLF as LF).
func CommentDigest(body string) string {
	return framed("slipway-comment-body/v1", strings.ReplaceAll(body, "\r\n", "\n"))
}

// manifest is the slipway-manifest fence of a Change Issue's body.
type manifest struct {
	ManifestVersion int    `json:"manifest_version"`
	Profile         string `json:"profile"`
	Sections        []struct {
		BodySHA256        string `json:"body_sha256"`
		CommentDatabaseID int64  `json:"comment_database_id"`
		CommentNodeID     string `json:"comment_node_id"`
		Key               string `json:"key"`
		Role              string `json:"role"`
		Title             string `json:"title"`
	} `json:"sections"`
}

// badSource is the CLI's refusal of a source envelope: a usage error
// whose next starts the Run again with a source.
func (s *sim) badSource(budget, format string, args ...any) error {
	return &cliError{code: "invalid_source", exit: 2,
		message: "source file could not be imported: " + fmt.Sprintf(format, args...),
		next: nextOf(workspaceID(s.ws.root, s.ws.gitDir), "start", variant("start-with-source",
			[]string{"slipway", "run", "--budget", budget, "--json", "--root", s.ws.root},
			input("goal_file", "path", "--goal-file", true), input("source_file", "path", "--source-file", true)))}
}

// importSource reads a source envelope: the body begins with the level
// marker, then one slipway-manifest fence naming the section comments,
// each beginning with its section marker and matching its digest.
func (s *sim) importSource(r *run, data []byte, budget string) error {
	var env struct {
		SourceVersion int    `json:"source_version"`
		IssueID       string `json:"issue_id"`
		CanonicalURL  string `json:"canonical_url"`
		Body          string `json:"body"`
		Comments      []struct {
			NodeID string `json:"node_id"`
			Body   string `json:"body"`
		} `json:"comments"`
	}
	if err := strictObject(data, &env); err != nil || env.SourceVersion != 2 {
		return s.badSource(budget, "not a version 2 source envelope")
	}
	body := strings.TrimLeft(strings.ReplaceAll(env.Body, "\r\n", "\n"), " \t\n")
	rest, ok := strings.CutPrefix(body, levelMarker+"\n")
	if !ok {
		return s.badSource(budget, "parse source body: source must begin with %s", levelMarker)
	}
	rest = strings.TrimLeft(rest, " \t\n")
	fence, ok := strings.CutPrefix(rest, "```slipway-manifest\n")
	end := strings.Index(fence, "\n```")
	if !ok || end < 0 {
		return s.badSource(budget, "parse source body: missing slipway-manifest fence")
	}
	var m manifest
	if err := strictObject([]byte(fence[:end]), &m); err != nil || m.ManifestVersion != 2 {
		return s.badSource(budget, "parse source body: invalid manifest")
	}
	comments := map[string]string{}
	for _, c := range env.Comments {
		comments[c.NodeID] = strings.ReplaceAll(c.Body, "\r\n", "\n")
	}
	roles := map[string]bool{}
	for _, ref := range m.Sections {
		text, ok := comments[ref.CommentNodeID]
		if !ok || CommentDigest(text) != ref.BodySHA256 {
			return s.badSource(budget, "parse source body: manifest section %q comment body digest does not match", ref.Key)
		}
		marker := fmt.Sprintf("<!-- slipway-section:v1 key=%s -->\n", ref.Key)
		md, ok := strings.CutPrefix(text, marker)
		if !ok {
			return s.badSource(budget, "parse source body: section %q must begin with its marker", ref.Key)
		}
		roles[ref.Role] = true
		r.Sections = append(r.Sections, section{Key: ref.Key, Role: ref.Role, Title: ref.Title, Markdown: md,
			Revision: framed("slipway-section/v1", ref.Key, ref.Role, ref.Title, md), Material: framed("slipway-material/v1", md)})
	}
	for _, role := range sectionRoles {
		if !roles[role] {
			return s.badSource(budget, "parse source body: the manifest has no %s section", role)
		}
	}
	rev := digest(data)
	r.Source, _ = json.Marshal(map[string]any{"kind": "change_issue", "canonical_url": env.CanonicalURL,
		"issue_id": env.IssueID, "source_revision": rev, "manifest_revision": digest([]byte(fence[:end])),
		"requirements_revision": r.requirementsRevision()})
	return nil
}

func (r *run) requirementsRevision() string {
	fields := []string{"slipway-requirements/v1"}
	for _, s := range r.Sections {
		fields = append(fields, s.Revision)
	}
	return framed(fields...)
}

// requirements is an issue-backed Action's catalog and pinned reader.
func (r *run) requirements(actionID string) map[string]any {
	sections := []map[string]any{}
	keys := []string{}
	for _, s := range r.Sections {
		sections = append(sections, map[string]any{"key": s.Key, "role": s.Role, "title": s.Title,
			"section_revision": s.Revision, "material_sha256": s.Material, "bytes": len(s.Markdown)})
		keys = append(keys, s.Key)
	}
	return map[string]any{"requirements_revision": r.requirementsRevision(), "sections": sections,
		"required_for_action": keys,
		"reader": map[string]any{"operation": "read_material",
			"base_argv": []string{"slipway", "protocol", "material", "--root", r.Root, "--run", r.ID, "--action", actionID},
			"input":     map[string]any{"name": "section", "type": "enum", "flag": "--section", "required": true, "choices": keys}}}
}
