package slipway

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/go-json-experiment/json"

	"kusaw.dev/step/protocol"
)

// Version is this step's version, in its handshake.
const Version = "0.1.0"

// handshakeLine is the step's answer to KUSAW_HANDSHAKE=1.
const handshakeLine = `{"type":"handshake","name":"slipway","version":"` + Version + `",` +
	`"description":"Hosts a Slipway Run over its machine protocol v2, calling an agent for each Action.",` +
	`"interactive":false,"protocol_versions":[2],` +
	`"outputs_schema":{"type":"object","required":["run_id","summary","findings"],"properties":{` +
	`"run_id":{"type":"string"},"summary":{"type":"string"},"findings":{"type":"array","items":{"type":"object",` +
	`"required":["location","summary","detail"],"properties":{"location":{"type":"string"},` +
	`"summary":{"type":"string"},"detail":{"type":"string"}}}}}}}`

// Main is the step: with KUSAW_HANDSHAKE=1 in env it prints the handshake;
// otherwise it reads the v2 request on stdin, drives the Run, writes one
// flushed event line per thing that happens and the result last. Every
// failure of the Run, the CLI or the agent is a result; Main returns an
// error only when it cannot write to stdout. It never exits the process.
func Main(ctx context.Context, stdin io.Reader, stdout, stderr io.Writer, env []string) error {
	if lookupEnv(env, "KUSAW_HANDSHAKE") == "1" {
		_, err := io.WriteString(stdout, handshakeLine+"\n")
		return err
	}
	em := &emitter{w: bufio.NewWriter(stdout), stderr: stderr}
	res := runRequest(ctx, stdin, env, em, nil)
	em.line(res)
	return em.err
}

// runRequest reads the request and drives the Run it asks for; p, when
// not nil, is the person who answers pauses on the step's terminal.
func runRequest(ctx context.Context, stdin io.Reader, env []string, em *emitter, p *person) *protocol.Result {
	h := &host{emit: em, person: p}
	req, cfg, err := readRequest(stdin)
	if err != nil {
		return h.result(protocol.StatusFail, ReasonConfigInvalid, err.Error())
	}
	if err := h.setup(req, cfg, env); err != nil {
		return h.failed(err)
	}
	defer os.RemoveAll(h.tmp)
	var st *State
	switch r := req.Resume; {
	case r != nil && r.Provider == "slipway" && r.Fork:
		// A fork leaves the old session unchanged: a fresh Run, never
		// reported as resumed from the old one.
		h.emit.progress(fmt.Sprintf("resume.fork: starting a fresh Slipway Run; Run %s is left unchanged", r.SessionID))
		st, err = h.start(ctx, goalOf(req, cfg))
	case r != nil && r.Provider == "slipway":
		st, err = h.resume(ctx, r.SessionID)
	default:
		st, err = h.start(ctx, goalOf(req, cfg))
	}
	if err != nil {
		return h.failed(err)
	}
	return h.drive(ctx, st)
}

// readRequest decodes the request and its config.
func readRequest(stdin io.Reader) (*protocol.Request, *Config, error) {
	data, err := io.ReadAll(io.LimitReader(stdin, 64<<20))
	if err != nil {
		return nil, nil, fmt.Errorf("read the request: %w", err)
	}
	if _, err := protocol.Parse(data); err != nil {
		return nil, nil, fmt.Errorf("read the request: %w", err)
	}
	var req protocol.Request
	if err := json.Unmarshal(data, &req); err != nil {
		return nil, nil, fmt.Errorf("read the request: %w", err)
	}
	cfg, err := ParseConfig(req.Config)
	return &req, cfg, err
}

// setup resolves the worktree, the agent and the private folder.
func (h *host) setup(req *protocol.Request, cfg *Config, env []string) error {
	h.cfg, h.artifacts = cfg, req.ArtifactsDir
	switch {
	case req.Worktree != nil && *req.Worktree != "":
		h.root = *req.Worktree
	case len(req.Repos) > 0:
		h.root = req.Repos[0].Worktree
	default:
		return fmt.Errorf("%w: the request has no worktree for the Run's --root", ErrConfig)
	}
	root, err := filepath.Abs(h.root)
	if err != nil {
		return err
	}
	h.root = root
	if h.tmp, err = os.MkdirTemp("", "kusaw-slipway-"); err != nil {
		return err
	}
	h.cli = &cli{Bin: cfg.Slipway, Dir: h.root, Env: env}
	if h.cli.Bin, err = findBinary(cfg.Slipway, env); err != nil {
		os.RemoveAll(h.tmp)
		return err
	}
	h.agent, err = newAgent(cfg, env, h.root, h.tmp)
	if err != nil {
		os.RemoveAll(h.tmp)
	}
	return err
}

// goalOf is the task spec, or config.goal.
func goalOf(req *protocol.Request, cfg *Config) string {
	if t := req.Context.Task; t != nil && t.Spec != "" {
		return t.Spec
	}
	return cfg.Goal
}

// emitter writes the step's stdout: one flushed JSON line each.
type emitter struct {
	w      *bufio.Writer
	stderr io.Writer
	err    error // the first write error; later lines are dropped
}

func (e *emitter) progress(msg string)       { e.event(&protocol.Progress{Message: msg}) }
func (e *emitter) agentAction(s string)      { e.event(&protocol.AgentAction{Summary: clip(s, 4096)}) }
func (e *emitter) usage(u protocol.Usage)    { e.event(&u) }
func (e *emitter) event(ev protocol.Event)   { e.write(protocol.EncodeEvent(ev)) }
func (e *emitter) line(res *protocol.Result) { e.write(json.Marshal(res)) }

func (e *emitter) write(line []byte, err error) {
	if e.err != nil {
		return
	}
	if err != nil {
		fmt.Fprintf(e.stderr, "slipway step: encode a line: %v\n", err)
		return
	}
	e.w.Write(append(line, '\n'))
	e.err = e.w.Flush()
}

// clip cuts s to at most n bytes on a rune boundary.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && s[n]&0xc0 == 0x80 {
		n--
	}
	return s[:n] + "…"
}
