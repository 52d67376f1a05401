package main

import "strings"

// usage is the package comment of doc.go, so godoc and -help say the same.
var usage = func() string {
	var b strings.Builder
	for _, line := range strings.Split(docSource, "\n") {
		if !strings.HasPrefix(line, "//") || strings.HasPrefix(line, "//go:") {
			continue
		}
		line = strings.TrimPrefix(strings.TrimPrefix(line, "//"), " ")
		b.WriteString(strings.Replace(line, "\t", "  ", 1) + "\n")
	}
	return b.String()
}()
