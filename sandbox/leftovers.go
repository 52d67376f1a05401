package sandbox

import (
	"bufio"
	"bytes"
	"io"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"kusaw.dev/step/internal/proc"
)

// InitCommand is the runner's hidden subcommand that [Wrap] runs first
// inside a bwrap sandbox: `kusaw-step __init REPORT STOP -- STEP
// ARGS...`. Its implementation is [RunInit].
const InitCommand = "__init"

// The init's report: one line per process left, "g PID COMMAND" for a
// member of the step's process group, "d PID COMMAND" for one that left
// it; then "g+ N" or "d+ N" when N more were not listed. It is bounded so
// that one write carries it whole (PIPE_BUF) and never blocks, read or not.
const (
	reportMax        = 8   // processes listed of each kind
	reportCommandMax = 160 // bytes of each command
)

// reportWait bounds how long [Sandbox.Leftovers] waits for the end of the
// report: once the supervisor is gone, so is every process that held the
// channel, or it is dying of SIGKILL. It guards against a hang only.
const reportWait = 10 * time.Second

// encodeReport writes the init's report of grouped and detached.
func encodeReport(grouped, detached []proc.Left) []byte {
	var b bytes.Buffer
	for _, kind := range []struct {
		tag  string
		left []proc.Left
	}{{"d", detached}, {"g", grouped}} {
		for i, l := range kind.left {
			if i == reportMax {
				b.WriteString(kind.tag + "+ " + strconv.Itoa(len(kind.left)-i) + "\n")
				break
			}
			b.WriteString(kind.tag + " " + strconv.Itoa(l.Pid) + " " + reportCommand(l.Command) + "\n")
		}
	}
	return b.Bytes()
}

// reportCommand cuts a command to reportCommandMax bytes of valid UTF-8,
// every control character (a newline) a space.
func reportCommand(cmd string) string {
	if len(cmd) > reportCommandMax {
		cut := reportCommandMax
		for cut > 0 && !utf8.RuneStart(cmd[cut]) {
			cut--
		}
		cmd = cmd[:cut] + "…"
	}
	return strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return ' '
		}
		return r
	}, strings.ToValidUTF8(cmd, "?"))
}

// decodeReport reads the init's report: the processes left and how many
// more were not listed. Members of the step's group are left out when
// stopped: the runner stopped the step, SIGTERM reached each of them too,
// and the init left them their grace to end of it, as the runner gives a
// group without a sandbox.
func decodeReport(data []byte, stopped bool) (left []proc.Left, more int) {
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		tag, rest, _ := strings.Cut(sc.Text(), " ")
		if stopped && strings.HasPrefix(tag, "g") {
			continue
		}
		switch tag {
		case "d", "g":
			pid, cmd, _ := strings.Cut(rest, " ")
			if n, err := strconv.Atoi(pid); err == nil {
				left = append(left, proc.Left{Pid: n, Command: cmd})
			}
		case "d+", "g+":
			if n, err := strconv.Atoi(rest); err == nil {
				more += n
			}
		}
	}
	return left, more
}

// Leftovers returns the processes the step left running in the sandbox
// when it exited, which the sandbox's init then killed, with pids as
// seen inside the sandbox, and how many more it did not name. stopped
// says the runner stopped the step (see decodeReport). Call it once the
// command has exited, before Close; without a report (no bwrap, or the
// init was killed) it returns nothing.
func (s *Sandbox) Leftovers(stopped bool) ([]proc.Left, int) {
	if s == nil || s.reportR == nil {
		return nil, 0
	}
	s.closeReportWriter()
	_ = s.reportR.SetReadDeadline(time.Now().Add(reportWait))
	data, _ := io.ReadAll(io.LimitReader(s.reportR, 16<<10))
	s.reportR.Close()
	s.reportR = nil
	return decodeReport(data, stopped)
}

// closeReportWriter closes the runner's copy of the report's write end,
// so that the report ends when the sandbox's copies are gone.
func (s *Sandbox) closeReportWriter() {
	if s.reportW != nil {
		s.reportW.Close()
		s.reportW = nil
	}
}
