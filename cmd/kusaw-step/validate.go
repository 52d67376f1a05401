package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"kusaw.dev/step/protocol"
	"kusaw.dev/step/result"
	"kusaw.dev/step/schemas"
)

// cmdValidate checks one document: strict JSON first, then its schema.
func cmdValidate(_ context.Context, env *cmdEnv, args []string) error {
	fs := newFlags("validate", env)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 2 {
		return usageErrorf("usage: kusaw-step validate KIND FILE|-\nkinds: handshake, request, event, result, outputs:NAME (%s)", strings.Join(schemas.Outputs, ", "))
	}
	kind, name := fs.Arg(0), fs.Arg(1)
	if _, err := schemas.Source(kind); err != nil {
		return usageErrorf("%v", err)
	}
	data, err := readInput(env.stdin, name)
	if err != nil {
		return usageErrorf("%v", err)
	}
	problems := check(kind, data)
	for _, p := range problems {
		fmt.Fprintln(env.stdout, p)
	}
	if len(problems) > 0 {
		return failed(errSilent)
	}
	for _, w := range unknownFields(kind, data) {
		fmt.Fprintf(env.stdout, "warning: %s: %s\n", w.Code, w.Message)
	}
	return nil
}

// unknownFields warns of the members of a valid document its schema does
// not define: accepted, but most often misspelt.
func unknownFields(kind string, data []byte) []protocol.Warning {
	doc, err := protocol.Parse(data)
	if err != nil {
		return nil
	}
	if kind == "event" {
		m, _ := doc.(map[string]any)
		t, _ := m["type"].(string)
		kind = "event:" + t
	}
	return result.UnknownFieldWarnings(kind, doc)
}

// check returns one line per problem, "JSON-pointer: message".
func check(kind string, data []byte) []string {
	doc, err := protocol.Parse(data)
	var se *protocol.SyntaxError
	if errors.As(err, &se) {
		msg := fmt.Sprintf("byte offset %d: %s", se.Offset, se.Reason)
		return []string{schemas.Problem{Pointer: se.Pointer, Message: msg}.String()}
	}
	if err == nil {
		err = schemas.Validate(kind, doc)
	}
	var ve *schemas.Error
	if errors.As(err, &ve) {
		lines := make([]string, len(ve.Problems))
		for i, p := range ve.Problems {
			lines[i] = p.String()
		}
		return lines
	}
	if err != nil {
		return []string{schemas.Problem{Message: err.Error()}.String()}
	}
	return nil
}

func readInput(stdin io.Reader, name string) ([]byte, error) {
	if name == "-" {
		return io.ReadAll(stdin)
	}
	return os.ReadFile(name)
}
