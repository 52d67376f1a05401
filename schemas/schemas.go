// Package schemas embeds the JSON Schemas of the Kusaw step protocol v2,
// compiles each once, validates documents against them and renders them
// back into the field tables of the protocol's reference.
//
// The schema files are the single source of truth: the spec's tables are
// generated from the same schemas, and [Doc] must give them back row for
// row. The package validates parsed documents (see protocol.Parse for the
// strict decoding that comes first); it knows nothing of processes.
package schemas

import (
	"bytes"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"golang.org/x/text/language"
	"golang.org/x/text/message"

	"kusaw.dev/step/protocol"
)

// FS holds the schema files: handshake, request, event (the oneOf of the
// six event types), result, events/<type>, outputs/<name>, and env.json,
// the environment-variable table.
//
//go:embed *.json events/*.json outputs/*.json
var FS embed.FS

// BaseURL is the $id prefix of every embedded schema.
const BaseURL = "https://kusaw.dev/schemas/step/v2/"

// ErrUnknownKind is returned by [Validate] and [Source] for a kind that
// names no schema.
var ErrUnknownKind = errors.New("schemas: unknown document kind")

// EventTypes are the six event types, in the order the reference lists them.
var EventTypes = []string{"agent_action", "artifact", "note_ack", "progress", "tool_call", "usage"}

// Outputs are the names of the built-in outputs documents, for the kind
// "outputs:NAME".
var Outputs = []string{
	"score", "classify", "improvement-draft", "plan", "retro", "review-findings",
	"review-fix", "review-match", "review", "selection", "triage-assessments", "triage-groups",
}

// Kinds lists every kind [Validate] takes.
func Kinds() []string {
	kinds := []string{"handshake", "request", "event", "result"}
	for _, t := range EventTypes {
		kinds = append(kinds, "event:"+t)
	}
	for _, o := range Outputs {
		kinds = append(kinds, "outputs:"+o)
	}
	return kinds
}

// file returns the embedded file that holds kind's schema.
func file(kind string) (string, bool) {
	switch {
	case kind == "handshake", kind == "request", kind == "event", kind == "result":
		return kind + ".schema.json", true
	case strings.HasPrefix(kind, "event:") && slices.Contains(EventTypes, kind[6:]):
		return "events/" + kind[6:] + ".schema.json", true
	case strings.HasPrefix(kind, "outputs:") && slices.Contains(Outputs, kind[8:]):
		return "outputs/" + kind[8:] + ".schema.json", true
	}
	return "", false
}

// Source returns the schema of kind as it is embedded.
func Source(kind string) ([]byte, error) {
	name, ok := file(kind)
	if !ok {
		return nil, fmt.Errorf("%w %q; want one of %s", ErrUnknownKind, kind, strings.Join(Kinds(), ", "))
	}
	return FS.ReadFile(name)
}

// compiled holds the embedded schemas compiled so far, by kind. A command
// compiles only the kinds it validates, on first use: compiling all of them
// would cost every run of the runner tens of milliseconds. One kind is
// compiled at a time (the compiler is not safe for concurrent use), but a
// kind already compiled is looked up without waiting for another's
// compile: the handshake is checked while the result's schema compiles.
var compiled struct {
	sync.Mutex                      // held while compiling
	c          *jsonschema.Compiler // loads embedded files as references need them
	kinds      sync.Map             // kind → *jsonschema.Schema
}

// schemaOf returns the compiled schema of kind, a kind [file] knows.
func schemaOf(kind string) (*jsonschema.Schema, error) {
	if s, ok := compiled.kinds.Load(kind); ok {
		return s.(*jsonschema.Schema), nil
	}
	compiled.Lock()
	defer compiled.Unlock()
	if s, ok := compiled.kinds.Load(kind); ok { // compiled while we waited
		return s.(*jsonschema.Schema), nil
	}
	if compiled.c == nil {
		compiled.c = newCompiler(true)
	}
	name, _ := file(kind)
	s, err := compiled.c.Compile(BaseURL + name)
	if err != nil {
		return nil, fmt.Errorf("schemas: compile %s: %w", name, err)
	}
	compiled.kinds.Store(kind, s)
	return s, nil
}

// newCompiler returns a compiler of the embedded schemas. At run time it
// trusts them: checking them against the metaschema would cost every
// command more than validating a document. TestEmbeddedSchemasAreValid
// compiles them with trust false, which checks them.
func newCompiler(trust bool) *jsonschema.Compiler {
	c := jsonschema.NewCompiler()
	c.UseLoader(embeddedLoader{})
	if trust {
		c.TrustSchemas()
	}
	return c
}

// Precompile compiles the schema of each kind (see [Kinds]) now rather
// than on its first validation: a caller about to wait, for a step to
// start say, can have it done meanwhile.
func Precompile(kinds ...string) error {
	for _, kind := range kinds {
		if _, ok := file(kind); !ok {
			_, err := Source(kind)
			return err
		}
		if _, err := schemaOf(kind); err != nil {
			return err
		}
	}
	return nil
}

// embeddedLoader gives the compiler the embedded schema files, by their
// $id, and refuses any other URL.
type embeddedLoader struct{}

func (embeddedLoader) Load(url string) (any, error) {
	name, ok := strings.CutPrefix(url, BaseURL)
	if !ok {
		return refuseLoader{}.Load(url)
	}
	return readJSON(name)
}

func readJSON(name string) (any, error) {
	data, err := FS.ReadFile(name)
	if err != nil {
		return nil, err
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("schemas: %s: %w", name, err)
	}
	return doc, nil
}

// refuseLoader keeps the compiler from fetching anything: every schema the
// runner uses is embedded or supplied inline.
type refuseLoader struct{}

func (refuseLoader) Load(url string) (any, error) {
	return nil, fmt.Errorf("refusing to load %s: only embedded and inline schemas are used", url)
}

// Problem is one reason a document is invalid.
type Problem struct {
	Pointer string `json:"pointer"` // JSON pointer of the offending value ("" is the document)
	Message string `json:"message"`
}

func (p Problem) String() string {
	if p.Pointer == "" {
		return "(root): " + p.Message
	}
	return p.Pointer + ": " + p.Message
}

// Error is returned by [Validate] when a document breaks its schema.
type Error struct {
	Kind     string
	Problems []Problem
}

func (e *Error) Error() string {
	lines := make([]string, len(e.Problems))
	for i, p := range e.Problems {
		lines[i] = p.String()
	}
	return fmt.Sprintf("invalid %s: %s", e.Kind, strings.Join(lines, "; "))
}

// Validate checks doc, a value from protocol.Parse, against the schema of
// kind. The kind "event" dispatches on the document's "type" to that event's
// own schema, so a bad event gets one precise error rather than one per
// event type. It returns nil, an [*Error] or an error wrapping
// [ErrUnknownKind].
func Validate(kind string, doc any) error {
	if kind == "event" {
		return validateEvent(doc)
	}
	if _, ok := file(kind); !ok {
		_, err := Source(kind)
		return err
	}
	s, err := schemaOf(kind)
	if err != nil {
		return err
	}
	return validate(kind, s, doc)
}

// validate runs the validator, turning a crash into a problem: the
// validator (jsonschema/v6 v6.0.3) panics when it compares a bound with a
// number math/big refuses, such as 1e9999999, and a step chooses the
// numbers it prints.
func validate(kind string, s *jsonschema.Schema, doc any) (err error) {
	defer func() {
		if recover() != nil {
			err = &Error{Kind: kind, Problems: []Problem{{Message: "the document cannot be checked: a number is too large or too precise for the checker"}}}
		}
	}()
	return asError(kind, s.Validate(doc))
}

func validateEvent(doc any) error {
	obj, ok := doc.(map[string]any)
	if !ok {
		return &Error{Kind: "event", Problems: []Problem{{Message: fmt.Sprintf("got %s, want an object", protocol.TypeName(doc))}}}
	}
	t, _ := obj["type"].(string)
	if !slices.Contains(EventTypes, t) {
		return &Error{Kind: "event", Problems: []Problem{unknownType(obj["type"])}}
	}
	s, err := schemaOf("event:" + t)
	if err != nil {
		return err
	}
	return validate("event", s, doc)
}

func unknownType(t any) Problem {
	want := strings.Join(EventTypes, ", ")
	if t == nil {
		return Problem{Pointer: "", Message: "missing property 'type'; an event has a type, one of " + want}
	}
	return Problem{Pointer: "/type", Message: fmt.Sprintf("unknown event type %s; want one of %s (or result)", jsonText(t), want)}
}

var printer = message.NewPrinter(language.English)

// asError flattens the validator's tree of errors into its leaves.
func asError(kind string, err error) error {
	if err == nil {
		return nil
	}
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return err
	}
	e := &Error{Kind: kind}
	collect(ve, &e.Problems)
	slices.SortStableFunc(e.Problems, func(a, b Problem) int { return strings.Compare(a.Pointer, b.Pointer) })
	return e
}

func collect(ve *jsonschema.ValidationError, out *[]Problem) {
	if len(ve.Causes) == 0 {
		*out = append(*out, Problem{Pointer: pointer(ve.InstanceLocation), Message: problemText(ve)})
		return
	}
	for _, c := range ve.Causes {
		collect(c, out)
	}
}

// pointer renders path tokens as a JSON pointer (RFC 6901).
func pointer(tokens []string) string {
	var b strings.Builder
	for _, t := range tokens {
		b.WriteByte('/')
		t = strings.ReplaceAll(t, "~", "~0")
		b.WriteString(strings.ReplaceAll(t, "/", "~1"))
	}
	return b.String()
}

func jsonText(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

// problemText is the validator's message, with JSON's null for Go's nil.
func problemText(ve *jsonschema.ValidationError) string {
	return strings.ReplaceAll(ve.ErrorKind.LocalizedString(printer), "<nil>", "null")
}
