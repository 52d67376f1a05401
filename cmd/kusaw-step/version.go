package main

import (
	"context"
	"fmt"
	"io"
	"runtime/debug"
	"strings"

	"kusaw.dev/step/protocol"
)

// protocolVersions are the step protocol versions this runner speaks.
var protocolVersions = []int{protocol.Version}

// cmdVersion prints the module version, the VCS revision it was built
// from and the protocol versions spoken.
func cmdVersion(_ context.Context, env *cmdEnv, args []string) error {
	fs := newFlags("version", env)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 0 {
		return usageErrorf("version takes no arguments; see kusaw-step version --help")
	}
	info, _ := debug.ReadBuildInfo()
	writeVersion(env.stdout, info)
	return nil
}

// writeVersion writes what info says of the build: the first line is
// "kusaw-step VERSION", then one "key  value" line each.
func writeVersion(w io.Writer, info *debug.BuildInfo) {
	version, goVersion := "(unknown)", "(unknown)"
	settings := map[string]string{}
	if info != nil {
		version, goVersion = info.Main.Version, info.GoVersion
		for _, s := range info.Settings {
			settings[s.Key] = s.Value
		}
	}
	if version == "" {
		version = "(devel)"
	}
	fmt.Fprintf(w, "kusaw-step %s\n", version)
	if rev := settings["vcs.revision"]; rev != "" {
		if settings["vcs.modified"] == "true" {
			rev += " (modified)"
		}
		fmt.Fprintf(w, "revision   %s\n", rev)
	}
	if t := settings["vcs.time"]; t != "" {
		fmt.Fprintf(w, "committed  %s\n", t)
	}
	fmt.Fprintf(w, "go         %s\n", goVersion)
	vs := make([]string, len(protocolVersions))
	for i, v := range protocolVersions {
		vs[i] = fmt.Sprint(v)
	}
	fmt.Fprintf(w, "protocol   %s\n", strings.Join(vs, ", "))
}

// cmdHelp prints the overview, or one command's help.
func cmdHelp(ctx context.Context, env *cmdEnv, args []string) error {
	fs := newFlags("help", env)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	switch fs.NArg() {
	case 0:
		fmt.Fprint(env.stdout, usage)
		return nil
	case 1:
		if _, ok := helps[fs.Arg(0)]; ok {
			return commands[fs.Arg(0)](ctx, env, []string{"--help"})
		}
		return usageErrorf("unknown command %q; see kusaw-step --help", fs.Arg(0))
	}
	return usageErrorf("usage: kusaw-step help [COMMAND]")
}
