package stepkit

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"

	"github.com/go-json-experiment/json"

	"kusaw.dev/step/protocol"
)

// Func is what a step does in one attempt. It returns the result; an error
// instead gives a result with status fail and reason_code "step_error".
type Func func(ctx context.Context, s *Step) (*protocol.Result, error)

// Program is a step: what it declares in its handshake and what it does.
type Program struct {
	// Handshake is the step's declaration. Type and protocol_versions may
	// be left zero: they are filled in ("handshake", [2]).
	Handshake protocol.Handshake
	// Run runs one attempt.
	Run Func
}

// Env reads the environment; os.Getenv is the real one.
type Env func(name string) string

// Main is Serve with the process's own stdin, stdout and environment.
func (p *Program) Main(ctx context.Context) error {
	return p.Serve(ctx, os.Stdin, os.Stdout, os.Getenv)
}

// Serve answers the handshake when KUSAW_HANDSHAKE=1; otherwise it runs
// one attempt: it reads the request from stdin (or KUSAW_REQUEST), calls
// Run and writes the result to stdout (or KUSAW_RESULT). The error is for
// what kept it from doing so; a failed attempt is a result, not an error.
func (p *Program) Serve(ctx context.Context, stdin io.Reader, stdout io.Writer, getenv Env) error {
	if getenv("KUSAW_HANDSHAKE") == "1" {
		return p.handshake(stdout)
	}
	if getenv("KUSAW_REQUEST") != "" {
		return p.interactive(ctx, getenv)
	}
	return p.attempt(ctx, stdin, stdout, stdout)
}

// handshake prints the declaration as one line.
func (p *Program) handshake(stdout io.Writer) error {
	h := p.Handshake
	h.Type = "handshake"
	if len(h.ProtocolVersions) == 0 {
		h.ProtocolVersions = []int{protocol.Version}
	}
	line, err := json.Marshal(&h)
	if err != nil {
		return fmt.Errorf("stepkit: encode the handshake: %w", err)
	}
	_, err = stdout.Write(append(line, '\n'))
	return err
}

// interactive runs an attempt through the files an interactive step is
// given: the request, the events (appended) and the result.
func (p *Program) interactive(ctx context.Context, getenv Env) error {
	req, err := os.Open(getenv("KUSAW_REQUEST"))
	if err != nil {
		return err
	}
	defer req.Close()
	events, err := os.OpenFile(getenv("KUSAW_EVENTS"), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return err
	}
	defer events.Close()
	res, err := os.Create(getenv("KUSAW_RESULT"))
	if err != nil {
		return err
	}
	if err := p.attempt(ctx, req, events, res); err != nil {
		res.Close()
		return err
	}
	return res.Close()
}

// attempt decodes the request, runs the step and writes its result.
func (p *Program) attempt(ctx context.Context, in io.Reader, events, result io.Writer) error {
	req, err := DecodeRequest(in)
	if err != nil {
		return err
	}
	s := &Step{Request: req, w: bufio.NewWriter(events)}
	res, runErr := p.Run(ctx, s)
	if runErr != nil {
		res = Fail("step_error", runErr.Error())
	}
	if res == nil {
		res = Fail("step_error", "the step returned no result")
	}
	if result == events {
		return s.writeLine(final(res))
	}
	return writeLine(result, final(res))
}

// DecodeRequest reads one request. Fields it does not know are kept,
// never an error: a newer runner may send more.
func DecodeRequest(r io.Reader) (*protocol.Request, error) {
	req := new(protocol.Request)
	if err := json.UnmarshalRead(r, req); err != nil {
		return nil, fmt.Errorf("stepkit: read the request: %w", err)
	}
	if req.ProtocolVersion != protocol.Version {
		return nil, fmt.Errorf("stepkit: the request speaks protocol %d; this step speaks %d", req.ProtocolVersion, protocol.Version)
	}
	return req, nil
}

// Step is one attempt as the step sees it: the request, and the stream
// events go to. Its methods may be called from several goroutines.
type Step struct {
	// Request is the attempt's request.
	Request *protocol.Request

	mu sync.Mutex
	w  *bufio.Writer
}

// ErrNoArtifactsDir is returned by [Step.WriteArtifact] when the request
// gives no artifacts_dir.
var ErrNoArtifactsDir = errors.New("stepkit: the request gives no artifacts_dir")

// Emit writes ev as one line and flushes it, so the runner sees it now.
func (s *Step) Emit(ev protocol.Event) error {
	line, err := protocol.EncodeEvent(ev)
	if err != nil {
		return fmt.Errorf("stepkit: encode a %s event: %w", ev.EventType(), err)
	}
	return s.writeRaw(line)
}

// writeLine writes v as one flushed JSON line.
func (s *Step) writeLine(v any) error {
	line, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return s.writeRaw(line)
}

func (s *Step) writeRaw(line []byte) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.w.Write(line)
	s.w.WriteByte('\n')
	return s.w.Flush()
}

func writeLine(w io.Writer, v any) error {
	line, err := json.Marshal(v)
	if err != nil {
		return err
	}
	_, err = w.Write(append(line, '\n'))
	return err
}
