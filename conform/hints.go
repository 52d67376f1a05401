package conform

import (
	"fmt"
	"io"
	"os"
	"regexp"
	"strings"

	step "kusaw.dev/step"
)

// terminalTailBytes is how much of terminal.log the IA-001 hint reads.
const terminalTailBytes = 4 << 10

// answerHint is what IA-001 adds when an interactive step gave no valid
// result and the battery told it nothing: it may have waited for a person.
// It suggests --answer and shows the terminal's last lines.
func answerHint(answers []string, rec *step.Record) string {
	if len(answers) > 0 {
		return ""
	}
	hint := "; the battery told the step nothing: if it asks a question, give the answer with --answer TEXT (one per line it reads)"
	if rec.Logs.Terminal != nil {
		if lines := lastLines(rec.Logs.Terminal.Path, 5); len(lines) > 0 {
			hint += fmt.Sprintf(". The terminal's last lines: %s", strings.Join(lines, " | "))
		}
	}
	return hint
}

// escapes matches terminal control sequences: CSI, OSC and two-byte ones.
var escapes = regexp.MustCompile(`\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(\x07|\x1b\\)|\x1b[@-_]`)

// lastLines returns the last n lines of a terminal log that hold text,
// without control sequences, each cut to 120 bytes.
func lastLines(path string, n int) []string {
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	if fi, err := f.Stat(); err == nil && fi.Size() > terminalTailBytes {
		f.Seek(-terminalTailBytes, io.SeekEnd)
	}
	data, _ := io.ReadAll(f)
	text := escapes.ReplaceAllString(string(data), "")
	var out []string
	for _, l := range strings.Split(text, "\n") {
		if i := strings.LastIndexByte(l, '\r'); i >= 0 && strings.TrimSpace(l[i+1:]) != "" {
			l = l[i+1:] // what a carriage return left on screen
		}
		l = strings.TrimSpace(strings.ReplaceAll(l, "\r", ""))
		if l != "" {
			out = append(out, fmt.Sprintf("%q", cutText(l, 120)))
		}
	}
	return out[max(0, len(out)-n):]
}

func cutText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
