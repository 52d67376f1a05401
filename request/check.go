package request

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/go-json-experiment/json"

	"kusaw.dev/step/protocol"
	"kusaw.dev/step/schemas"
)

// ErrInvalid is the condition behind every [*InvalidError]: a request that
// is not strict JSON, breaks the request schema or does not fit the typed
// request. [Load], [Decode], [Encode] and [Synthesize] return it.
var ErrInvalid = errors.New("invalid request")

// InvalidError lists why a request is invalid. It matches [ErrInvalid] with
// errors.Is, and unwraps to the error underneath: a *protocol.SyntaxError
// (so errors.Is(err, protocol.ErrSyntax) tells a syntax error), a
// *schemas.Error, or the typed decoder's error.
type InvalidError struct {
	Path     string            // the file Load read; "" for a request that was not read from a file
	Problems []schemas.Problem // one per problem, in pointer order; a syntax error is one problem
	Err      error             // the error underneath
}

// Error returns a first line naming the request, then one line per
// problem, "pointer: message", the way `kusaw-step validate` prints them.
func (e *InvalidError) Error() string {
	head := "invalid request"
	if e.Path != "" {
		head += " " + e.Path
	}
	lines := []string{head + ":"}
	for _, p := range e.Problems {
		lines = append(lines, p.String())
	}
	return strings.Join(lines, "\n")
}

// Unwrap returns the error underneath.
func (e *InvalidError) Unwrap() error { return e.Err }

// Is reports whether target is [ErrInvalid].
func (e *InvalidError) Is(target error) bool { return target == ErrInvalid }

// Load reads a full v2 request from the file at path and decodes it as
// [Decode] does. It returns the file's bytes exactly as read, for the
// runner to hand to the step unchanged, and the typed request. A request
// that fails any check is an [*InvalidError] naming path; a file that
// cannot be read is the os error.
func Load(path string) (raw []byte, req *protocol.Request, err error) {
	raw, err = os.ReadFile(path)
	if err != nil {
		return nil, nil, fmt.Errorf("load request: %w", err)
	}
	req, err = Decode(raw)
	if ie, ok := errors.AsType[*InvalidError](err); ok {
		ie.Path = path
	}
	if err != nil {
		return nil, nil, err
	}
	return raw, req, nil
}

// Decode checks data as a full v2 request, strict JSON first
// (protocol.Parse), then the request schema, then the typed decode, and
// returns the typed request, whose Unknown fields keep what the typed core
// does not name. A request that fails any check is an [*InvalidError].
func Decode(data []byte) (*protocol.Request, error) {
	if err := check(data); err != nil {
		return nil, err
	}
	req := new(protocol.Request)
	if err := json.Unmarshal(data, req); err != nil {
		return nil, &InvalidError{Problems: []schemas.Problem{decodeProblem(err)}, Err: err}
	}
	return req, nil
}

// Encode returns req as JSON, one object without a trailing newline, its
// fields in the typed order, the unknown ones last and every map's keys
// sorted. It returns an [*InvalidError] when the encoding breaks the
// request schema.
func Encode(req *protocol.Request) ([]byte, error) {
	data, err := json.Marshal(req, json.Deterministic(true))
	if err != nil {
		return nil, fmt.Errorf("encode request: %w", err)
	}
	if err := check(data); err != nil {
		return nil, err
	}
	return data, nil
}

// check parses data strictly and validates it against the request schema.
func check(data []byte) error {
	doc, err := protocol.Parse(data)
	var se *protocol.SyntaxError
	if errors.As(err, &se) {
		return &InvalidError{Problems: []schemas.Problem{syntaxProblem(se)}, Err: err}
	}
	if err != nil {
		return err
	}
	err = schemas.Validate("request", doc)
	var ve *schemas.Error
	if errors.As(err, &ve) {
		return &InvalidError{Problems: ve.Problems, Err: err}
	}
	return err
}

// syntaxProblem words a syntax error as `kusaw-step validate` does: at the
// pointer of the value being read, with its byte offset.
func syntaxProblem(se *protocol.SyntaxError) schemas.Problem {
	return schemas.Problem{Pointer: se.Pointer, Message: fmt.Sprintf("byte offset %d: %s", se.Offset, se.Reason)}
}

// decodeProblem words an error of the typed decode, such as an integer
// the schema accepts but an int64 cannot hold.
func decodeProblem(err error) schemas.Problem {
	se, ok := errors.AsType[*json.SemanticError](err)
	if !ok {
		return schemas.Problem{Message: err.Error()}
	}
	msg := se.Error()
	if se.GoType != nil && len(se.JSONValue) > 0 {
		msg = fmt.Sprintf("%s does not fit the runner's %s", se.JSONValue, se.GoType)
	}
	return schemas.Problem{Pointer: string(se.JSONPointer), Message: msg}
}
