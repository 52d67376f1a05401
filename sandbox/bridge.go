package sandbox

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"sync"
	"syscall"
)

// BridgeCommand is the runner's hidden subcommand that [Wrap] runs inside
// the sandbox: `kusaw-step __bridge SOCKET PORT -- STEP ARGS...`. Its
// implementation is [RunBridge].
const BridgeCommand = "__bridge"

// RunBridge is the bridge between the sandbox's loopback and the egress
// proxy, run inside the sandbox by the runner's own binary. args are
// SOCKET PORT -- STEP ARGS...: it listens on 127.0.0.1:PORT, forwards
// every connection to the unix socket SOCKET, runs the step with the
// given streams (forwarding SIGTERM, SIGINT and SIGHUP to it) and returns
// the step's exit status once it has exited.
func RunBridge(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) (int, error) {
	if len(args) < 4 || args[2] != "--" {
		return 2, fmt.Errorf("%s: usage: SOCKET PORT -- STEP [ARGS...]", BridgeCommand)
	}
	port, err := strconv.ParseUint(args[1], 10, 16)
	if err != nil {
		return 2, fmt.Errorf("%s: port: %w", BridgeCommand, err)
	}
	ln, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.FormatUint(port, 10)))
	if err != nil {
		return 1, fmt.Errorf("%s: %w", BridgeCommand, err)
	}
	r := &relay{conns: make(map[net.Conn]bool)}
	r.wg.Add(1)
	go r.serve(ln, args[0])
	defer r.stop(ln)
	return runStep(ctx, args[3:], stdin, stdout, stderr)
}

// relay forwards the bridge's connections; stop ends them all and waits.
type relay struct {
	mu    sync.Mutex
	conns map[net.Conn]bool // open connections; nil once stopped
	wg    sync.WaitGroup    // serve and one per connection
}

// serve forwards each connection accepted on ln to the unix socket until
// ln is closed.
func (r *relay) serve(ln net.Listener, socket string) {
	defer r.wg.Done()
	for {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		r.mu.Lock()
		if r.conns == nil {
			c.Close()
		} else {
			r.conns[c] = true
			r.wg.Add(1)
			go func() {
				defer r.wg.Done()
				splice(c, socket)
			}()
		}
		r.mu.Unlock()
	}
}

// stop closes ln and every open connection, then waits for the goroutines.
func (r *relay) stop(ln net.Listener) {
	ln.Close()
	r.mu.Lock()
	for c := range r.conns {
		c.Close()
	}
	r.conns = nil
	r.mu.Unlock()
	r.wg.Wait()
}

// splice copies between c and a new connection to socket.
func splice(c net.Conn, socket string) {
	defer c.Close()
	up, err := net.Dial("unix", socket)
	if err != nil {
		return
	}
	defer up.Close()
	done := make(chan struct{})
	go func() {
		_, _ = io.Copy(up, c)
		up.(*net.UnixConn).CloseWrite()
		close(done)
	}()
	_, _ = io.Copy(c, up)
	c.(*net.TCPConn).CloseWrite()
	<-done
}

// runStep runs argv and returns its exit status.
func runStep(ctx context.Context, argv []string, stdin io.Reader, stdout, stderr io.Writer) (int, error) {
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = stdin, stdout, stderr
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP)
	defer signal.Stop(sigs)
	if err := cmd.Start(); err != nil {
		return 127, fmt.Errorf("%s: %w", BridgeCommand, err)
	}
	waited := make(chan error, 1)
	go func() { waited <- cmd.Wait() }()
	for {
		select {
		case s := <-sigs:
			_ = cmd.Process.Signal(s)
		case <-ctx.Done():
			_ = cmd.Process.Signal(syscall.SIGTERM)
			ctx = context.Background()
		case err := <-waited:
			return exitStatus(cmd, err)
		}
	}
}

// exitStatus is the shell's view of how the step ended: its code, or 128
// plus the signal that killed it.
func exitStatus(cmd *exec.Cmd, err error) (int, error) {
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		return 1, err
	}
	ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus)
	if ok && ws.Signaled() {
		return 128 + int(ws.Signal()), nil
	}
	return cmd.ProcessState.ExitCode(), nil
}
