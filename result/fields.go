package result

import (
	stdjson "encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/go-json-experiment/json"

	"kusaw.dev/step/protocol"
)

// The caps of the fields a step may get wrong without failing: a value
// past them is ignored or dropped with a warning.
const (
	MaxRecovery        = 5       // recovery items kept
	MaxRecoveryTitle   = 80      // characters of a recovery title
	MaxRecoveryCommand = 500     // characters of a recovery command
	MaxPhase           = 40      // characters of phase
	MinRetryAfterMS    = 1000    // smallest retry_after_ms honoured
	MaxRetryAfterMS    = 900_000 // largest retry_after_ms honoured
	MaxProvenanceTools = 32      // entries of provenance.tools
)

// The codes of the warnings Check gives.
const (
	WarnRecoveryDropped   = "recovery_dropped"
	WarnPhaseIgnored      = "phase_ignored"
	WarnRetryAfterIgnored = "retry_after_ignored"
	WarnResetsAtIgnored   = "resets_at_ignored"
	WarnProvenanceIgnored = "provenance_ignored"
)

// checkRecovery keeps the first MaxRecovery valid items. An item is valid
// when it is an object whose title and command are both non-blank strings
// (a person is shown a titled command; half of one helps no-one) within
// their lengths, counted in characters (runes). Anything else, a recovery
// that is not an array included, is dropped with a warning, never a
// protocol_error (spec row recovery).
func (c *checker) checkRecovery() {
	raw, present := c.doc["recovery"]
	items, ok := raw.([]any)
	if present && !ok {
		c.warn(WarnRecoveryDropped, fmt.Sprintf("recovery is %s, not an array of {title, command}; ignored", protocol.TypeName(raw)))
	}
	var kept []protocol.Recovery
	for i, it := range items {
		r, why := recoveryItem(it)
		if why == "" {
			why = recoveryProblem(r)
		}
		if why == "" && len(kept) == MaxRecovery {
			why = fmt.Sprintf("%d valid items are already kept, the most a result may give", MaxRecovery)
		}
		if why != "" {
			c.warn(WarnRecoveryDropped, fmt.Sprintf("recovery[%d] dropped: %s", i, why))
			continue
		}
		kept = append(kept, r)
	}
	c.res.Recovery, c.v.Recovery = kept, kept
}

// recoveryItem reads one recovery item of the parsed result, or says why
// it has the wrong type.
func recoveryItem(it any) (protocol.Recovery, string) {
	obj, ok := it.(map[string]any)
	if !ok {
		return protocol.Recovery{}, fmt.Sprintf("it is %s, not an object of title and command", protocol.TypeName(it))
	}
	var r protocol.Recovery
	for _, f := range []struct {
		key string
		dst *string
	}{{"title", &r.Title}, {"command", &r.Command}} {
		key, dst := f.key, f.dst
		v, ok := obj[key]
		if !ok {
			continue
		}
		s, ok := v.(string)
		if !ok {
			return r, fmt.Sprintf("its %s is %s, not a string", key, protocol.TypeName(v))
		}
		*dst = s
	}
	return r, ""
}

func recoveryProblem(r protocol.Recovery) string {
	switch {
	case strings.TrimSpace(r.Title) == "":
		return "its title is empty; an item needs a title and a command"
	case strings.TrimSpace(r.Command) == "":
		return "its command is empty; an item needs a title and a command"
	case utf8.RuneCountInString(r.Title) > MaxRecoveryTitle:
		return fmt.Sprintf("its title is %d characters, over %d", utf8.RuneCountInString(r.Title), MaxRecoveryTitle)
	case utf8.RuneCountInString(r.Command) > MaxRecoveryCommand:
		return fmt.Sprintf("its command is %d characters, over %d", utf8.RuneCountInString(r.Command), MaxRecoveryCommand)
	}
	return ""
}

// checkPhase keeps phase when it is at most MaxPhase characters matching
// ^[a-z][a-z0-9_]*$; otherwise it is ignored, never a protocol_error.
//
// A phase of another type than string (5, null) is "a value that does not
// match" too (spec row phase): ignored with a warning.
func (c *checker) checkPhase() {
	raw, ok := c.doc["phase"]
	if !ok {
		return
	}
	p, ok := raw.(string)
	if !ok {
		c.warn(WarnPhaseIgnored, fmt.Sprintf("phase is %s, not a string; ignored: a phase is 1 to %d characters matching ^[a-z][a-z0-9_]*$", protocol.TypeName(raw), MaxPhase))
		c.res.Phase = ""
		return
	}
	c.res.Phase = p
	if validPhase(p) {
		c.v.Phase = p
		return
	}
	c.warn(WarnPhaseIgnored, fmt.Sprintf("phase %s ignored: a phase is 1 to %d characters matching ^[a-z][a-z0-9_]*$", quoteCut(c.res.Phase), MaxPhase))
	c.res.Phase = ""
}

func validPhase(s string) bool {
	if s == "" || len(s) > MaxPhase {
		return false
	}
	for i, r := range s {
		lower := 'a' <= r && r <= 'z'
		if !lower && (i == 0 || !('0' <= r && r <= '9' || r == '_')) {
			return false
		}
	}
	return true
}

// checkRetryAfter honours retry_after_ms from MinRetryAfterMS to
// MaxRetryAfterMS. It reads the parsed number, so 1e3 and 1000.0 (integers
// to the schema) are honoured and values past int64 are ignored.
func (c *checker) checkRetryAfter() {
	num, ok := c.doc["retry_after_ms"].(stdjson.Number)
	if !ok {
		return
	}
	if ms, ok := retryAfter(num.String()); ok {
		c.res.RetryAfterMS, c.v.RetryAfterMS = &ms, &ms
		return
	}
	c.res.RetryAfterMS = nil
	c.warn(WarnRetryAfterIgnored, fmt.Sprintf("retry_after_ms %s ignored: it is outside %d to %d, so the normal backoff is used", cut(num.String()), MinRetryAfterMS, MaxRetryAfterMS))
}

func retryAfter(s string) (int64, bool) {
	ms, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		f, err := strconv.ParseFloat(s, 64)
		if err != nil || f < MinRetryAfterMS || f > MaxRetryAfterMS {
			return 0, false
		}
		ms = int64(f)
	}
	return ms, ms >= MinRetryAfterMS && ms <= MaxRetryAfterMS
}

// checkResetsAt keeps resets_at when it is an RFC 3339 time.
func (c *checker) checkResetsAt() {
	if _, ok := c.doc["resets_at"]; !ok {
		return
	}
	if _, err := time.Parse(time.RFC3339Nano, c.res.ResetsAt); err == nil {
		c.v.ResetsAt = c.res.ResetsAt
		return
	}
	c.warn(WarnResetsAtIgnored, fmt.Sprintf("resets_at %s ignored: it is not an RFC 3339 time such as 2026-01-02T15:04:05Z", quoteCut(c.res.ResetsAt)))
	c.res.ResetsAt = ""
}

// Provenance is what a custom step says it called: the part of
// result.provenance that has the right types.
type Provenance struct {
	Model        string            `json:"model,omitzero"`
	Provider     string            `json:"provider,omitzero"`
	PromptSHA256 string            `json:"prompt_sha256,omitzero"`
	Tools        map[string]string `json:"tools,omitzero"` // tool name to version
}

// checkProvenance keeps the parts of provenance that have their types:
// model, provider and prompt_sha256 strings, tools an object of at most
// MaxProvenanceTools string values. Each wrong part is dropped with a
// warning (a tool whose version is not a string alone; tools over the cap
// entirely); other keys are not kept. A null provenance is none.
func (c *checker) checkProvenance() {
	c.res.Provenance = nil
	raw, ok := c.doc["provenance"]
	if !ok || raw == nil {
		return
	}
	obj, ok := raw.(map[string]any)
	if !ok {
		c.warn(WarnProvenanceIgnored, fmt.Sprintf("provenance is %s, not an object; ignored", protocol.TypeName(raw)))
		return
	}
	p := &Provenance{
		Model:        c.provenanceString(obj, "model"),
		Provider:     c.provenanceString(obj, "provider"),
		PromptSHA256: c.provenanceString(obj, "prompt_sha256"),
		Tools:        c.provenanceTools(obj["tools"]),
	}
	if p.Model == "" && p.Provider == "" && p.PromptSHA256 == "" && len(p.Tools) == 0 {
		return
	}
	c.v.Provenance = p
	c.res.Provenance, _ = json.Marshal(p, json.Deterministic(true))
}

func (c *checker) provenanceString(obj map[string]any, key string) string {
	v, ok := obj[key]
	if !ok {
		return ""
	}
	s, ok := v.(string)
	if !ok {
		c.warn(WarnProvenanceIgnored, fmt.Sprintf("provenance.%s is %s, not a string; ignored", key, protocol.TypeName(v)))
	}
	return s
}

func (c *checker) provenanceTools(v any) map[string]string {
	if v == nil {
		return nil // absent; a null tools is none too
	}
	m, ok := v.(map[string]any)
	switch {
	case !ok:
		c.warn(WarnProvenanceIgnored, fmt.Sprintf("provenance.tools is %s, not an object of tool name to version; ignored", protocol.TypeName(v)))
		return nil
	case len(m) > MaxProvenanceTools:
		c.warn(WarnProvenanceIgnored, fmt.Sprintf("provenance.tools has %d entries, over %d; all ignored", len(m), MaxProvenanceTools))
		return nil
	}
	out := make(map[string]string, len(m))
	for _, name := range slices.Sorted(maps.Keys(m)) {
		s, ok := m[name].(string)
		if !ok {
			c.warn(WarnProvenanceIgnored, fmt.Sprintf("provenance.tools[%s] is %s, not a version string; ignored", quoteCut(name), protocol.TypeName(m[name])))
			continue
		}
		out[name] = s
	}
	return out
}

// quoteCut quotes s for a message, cut to 60 characters.
func quoteCut(s string) string { return strconv.Quote(cut(s)) }

// cut cuts s to 60 characters for a message.
func cut(s string) string {
	if utf8.RuneCountInString(s) <= 60 {
		return s
	}
	return string([]rune(s)[:60]) + "…"
}
