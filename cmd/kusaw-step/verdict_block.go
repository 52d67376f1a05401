package main

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"

	step "kusaw.dev/step"
)

// maxWarningLines is how many warnings the verdict block lists; the rest
// are counted, and all are in attempt.json.
const maxWarningLines = 10

// writeVerdict writes the verdict block of a finished attempt: what the
// live view ends with, and what kusaw-step show prints again from an
// attempt folder's record. dir is the attempt folder.
func writeVerdict(w io.Writer, rec *step.Record, dir string) {
	head := fmt.Sprintf("%s (%s)", rec.Status, rec.ReasonCode)
	if n := len(rec.Warnings); n > 0 {
		head += " · " + plural(n, "warning")
	}
	line(w, "verdict", head)
	if rec.Message != "" {
		line(w, "message", rec.Message)
	}
	if len(rec.Outputs) > 0 {
		line(w, "outputs", cut(string(rec.Outputs), 200))
	}
	for _, a := range rec.Artifacts {
		line(w, "artifact", fmt.Sprintf("%s (%s)", a.Path, a.Kind))
	}
	for i, wn := range rec.Warnings {
		if i == maxWarningLines {
			line(w, "warning", fmt.Sprintf("… and %d more in %s", len(rec.Warnings)-i, filepath.Join(dir, "attempt.json")))
			break
		}
		line(w, "warning", wn.Code+": "+wn.Message)
	}
	if u := usageText(rec); u != "" {
		line(w, "usage", u)
	}
	line(w, "duration", durationText(time.Duration(rec.DurationMS)*time.Millisecond)+" · "+exitText(rec))
	egressLine(w, rec, dir)
	line(w, "logs", fmt.Sprintf("%s (%s)", dir, logSizes(rec)))
	if rec.Diagnosis != "" {
		fmt.Fprintf(w, "\n%s\n", rec.Diagnosis)
	}
}

// line writes one "label   text" line of the block.
func line(w io.Writer, label, text string) {
	fmt.Fprintf(w, "%-9s%s\n", label, text)
}

// usageText says the tokens and cost the step reported: the result's cost
// when it gave one, else its last usage event; "" when it reported none.
func usageText(rec *step.Record) string {
	var in, out, cached *int64
	var usd *float64
	if u := rec.Usage; u != nil {
		in, out, cached, usd = u.TokensInput, u.TokensOutput, u.TokensCached, u.CostUSD
	}
	if c := rec.Cost; c != nil {
		if c.TokensInput != nil || c.TokensOutput != nil || c.TokensCached != nil {
			in, out, cached = c.TokensInput, c.TokensOutput, c.TokensCached
		}
		if c.USD != nil {
			usd = c.USD
		}
	}
	var parts []string
	if in != nil || out != nil {
		t := fmt.Sprintf("%s tokens (%s in, %s out", thousands(value(in)+value(out)), thousands(value(in)), thousands(value(out)))
		if cached != nil {
			t += ", " + thousands(*cached) + " cached"
		}
		parts = append(parts, t+")")
	}
	if usd != nil {
		parts = append(parts, fmt.Sprintf("$%.4f", *usd))
	}
	return strings.Join(parts, " · ")
}

// exitText says how the step's process ended.
func exitText(rec *step.Record) string {
	switch {
	case rec.Signal != "":
		return "ended by signal: " + rec.Signal
	case rec.ExitCode != nil:
		return fmt.Sprintf("exit status %d", *rec.ExitCode)
	}
	return "no exit status (not started)"
}

// durationText rounds a duration for a person: 850ms, 12.3s, 2m5s.
func durationText(d time.Duration) string {
	switch {
	case d < time.Second:
		return d.Round(time.Millisecond).String()
	case d < time.Minute:
		return d.Round(100 * time.Millisecond).String()
	}
	return d.Round(time.Second).String()
}

// logSizes names the attempt's logs that hold what the step wrote: an
// interactive step's terminal.log and events.jsonl (its stdout and stderr
// were the terminal), or stdout.jsonl and stderr.log.
func logSizes(rec *step.Record) string {
	l := rec.Logs
	if l.Terminal != nil {
		s := "terminal.log " + size(l.Terminal.Bytes)
		if l.Events != nil {
			s += ", events.jsonl " + size(l.Events.Bytes)
		}
		if l.Stderr.Bytes > 0 {
			s += ", stderr.log " + size(l.Stderr.Bytes)
		}
		return s
	}
	return fmt.Sprintf("stdout.jsonl %s, stderr.log %s", size(l.Stdout.Bytes), size(l.Stderr.Bytes))
}

// thousands writes n with thousands separators: 12,345.
func thousands(n int64) string {
	s := fmt.Sprint(n)
	if n < 0 {
		return "-" + thousands(-n)
	}
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}
