package conform

import (
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// Formats are the report formats [Report.Write] takes.
var Formats = []string{"table", "json", "junit", "tap"}

// ErrFormat is returned by [Report.Write] for a format not in Formats.
var ErrFormat = errors.New("conform: unknown report format")

// Write writes the report in format: "table" (for people), "json",
// "junit" or "tap" (for CI).
func (r *Report) Write(w io.Writer, format string) error {
	switch format {
	case "table", "":
		return r.writeTable(w)
	case "json":
		return r.writeJSON(w)
	case "junit":
		return r.writeJUnit(w)
	case "tap":
		return r.writeTAP(w)
	}
	return fmt.Errorf("%w %q; want one of %s", ErrFormat, format, strings.Join(Formats, ", "))
}

// Summary says in one line how the battery went, e.g. "21 passed, 1
// failed (0 MUST), 5 skipped: PASS".
func (r *Report) Summary() string {
	must := 0
	for _, o := range r.Outcomes {
		if o.Status == Fail && o.Level == Must {
			must++
		}
	}
	verdict := "PASS"
	if why := r.Why(); why != "" {
		verdict = "FAIL (" + why + ")"
	}
	return fmt.Sprintf("%d passed, %d failed (%d MUST), %d skipped: %s", r.Count(Pass), r.Count(Fail), must, r.Count(Skip), verdict)
}

// writeTable writes one row per outcome, with the message under it.
func (r *Report) writeTable(w io.Writer) error {
	fmt.Fprintf(w, "kusaw-step conform %s", strings.Join(r.Command, " "))
	if r.Step != "" {
		fmt.Fprintf(w, " (%s)", r.Step)
	}
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "STATUS\tCHECK\tLEVEL\tMODE\tWHAT")
	for _, o := range r.Outcomes {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", o.Status, o.ID, o.Level, or(o.Mode, "-"), o.Title)
		if o.Message != "" {
			fmt.Fprintf(tw, "\t\t\t\t  %s\n", o.Message)
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	_, err := fmt.Fprintln(w, r.Summary())
	return err
}

func or(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// jsonReport is the JSON report's shape.
type jsonReport struct {
	*Report `json:",inline"`
	Passed  bool           `json:"passed"`
	Why     string         `json:"why,omitzero"` // why it did not pass
	Summary map[Status]int `json:"summary"`
}

func (r *Report) writeJSON(w io.Writer) error {
	doc := jsonReport{Report: r, Passed: r.Passed(), Why: r.Why(), Summary: map[Status]int{Pass: r.Count(Pass), Fail: r.Count(Fail), Skip: r.Count(Skip)}}
	if err := json.MarshalWrite(w, doc, json.Deterministic(true), jsontext.WithIndent("  ")); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}

// name is an outcome's test name: "HS-001 the title", or "AT-001
// [pipeline] the title".
func (o Outcome) name() string {
	if o.Mode == "" {
		return o.ID + " " + o.Title
	}
	return o.ID + " [" + o.Mode + "] " + o.Title
}

// junit* are the JUnit XML elements CI systems read.
type junitSuites struct {
	XMLName xml.Name   `xml:"testsuites"`
	Suite   junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name     string      `xml:"name,attr"`
	Tests    int         `xml:"tests,attr"`
	Failures int         `xml:"failures,attr"`
	Skipped  int         `xml:"skipped,attr"`
	Cases    []junitCase `xml:"testcase"`
}

type junitCase struct {
	Class     string        `xml:"classname,attr"`
	Name      string        `xml:"name,attr"`
	Failure   *junitMessage `xml:"failure,omitempty"`
	Skipped   *junitMessage `xml:"skipped,omitempty"`
	SystemOut string        `xml:"system-out,omitempty"`
}

type junitMessage struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr,omitempty"`
}

// writeJUnit writes JUnit XML. A failed SHOULD check is a passing test
// case with a warning in its system-out, so CI fails exactly when the
// command does.
func (r *Report) writeJUnit(w io.Writer) error {
	s := junitSuite{Name: "kusaw-step conform " + strings.Join(r.Command, " "), Tests: len(r.Outcomes)}
	for _, o := range r.Outcomes {
		c := junitCase{Class: "conform." + o.Spec, Name: o.name(), SystemOut: o.Message}
		switch {
		case o.Status == Fail && o.Level == Must:
			c.Failure, c.SystemOut = &junitMessage{Message: o.Message, Type: string(o.Level)}, ""
			s.Failures++
		case o.Status == Fail:
			c.SystemOut = "warning (SHOULD): " + o.Message
		case o.Status == Skip:
			c.Skipped, c.SystemOut = &junitMessage{Message: o.Message}, ""
			s.Skipped++
		}
		s.Cases = append(s.Cases, c)
	}
	io.WriteString(w, xml.Header)
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(junitSuites{Suite: s}); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}

// writeTAP writes TAP version 14. A skip is "ok … # SKIP"; a failed
// SHOULD check is "not ok … # TODO", which TAP does not count as a
// failure.
func (r *Report) writeTAP(w io.Writer) error {
	fmt.Fprintf(w, "TAP version 14\n1..%d\n", len(r.Outcomes))
	for i, o := range r.Outcomes {
		ok, directive := "ok", ""
		switch {
		case o.Status == Skip:
			directive = " # SKIP " + tapEscape(o.Message)
		case o.Status == Fail && o.Level == Should:
			ok, directive = "not ok", " # TODO SHOULD"
		case o.Status == Fail:
			ok = "not ok"
		}
		fmt.Fprintf(w, "%s %d - %s%s\n", ok, i+1, tapEscape(o.name()), directive)
		if o.Status == Fail {
			fmt.Fprintf(w, "  ---\n  message: %s\n  spec: %s\n  level: %s\n  ...\n", strconv.Quote(o.Message), strconv.Quote(o.Spec), o.Level)
		}
	}
	return nil
}

// tapEscape escapes the characters TAP gives a meaning in a description.
func tapEscape(s string) string {
	return strings.NewReplacer("\\", "\\\\", "#", "\\#", "\n", " ").Replace(s)
}
