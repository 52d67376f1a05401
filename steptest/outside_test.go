package steptest_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"kusaw.dev/step/steptest"
)

// greetMain is a step in a module of its own, as an outside author writes
// one with stepkit.
const greetMain = `package main

import (
	"context"
	"fmt"
	"os"

	"kusaw.dev/step/protocol"
	"kusaw.dev/step/stepkit"
)

func main() {
	p := &stepkit.Program{
		Handshake: protocol.Handshake{Name: "greet", Version: "1.0.0"},
		Run: func(ctx context.Context, s *stepkit.Step) (*protocol.Result, error) {
			var cfg struct{ Name string }
			if err := s.Config(&cfg); err != nil {
				return nil, err
			}
			return stepkit.OK("greeted", "hello, "+cfg.Name, nil)
		},
	}
	if err := p.Main(context.Background()); err != nil {
		fmt.Fprintln(os.Stderr, "greet:", err)
		os.Exit(1)
	}
}
`

// TestOutsideModule does what the README tells an outside Go module to do
// (issue 16 item 12): require kusaw.dev/step with a replace directive to a
// checkout, tidy, and build with steptest.Build(t, "."). The module cache
// must hold the dependencies: it runs offline.
func TestOutsideModule(t *testing.T) {
	repo, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "main.go"), []byte(greetMain), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"mod", "init", "example.com/greet"},
		{"mod", "edit", "-require=kusaw.dev/step@v0.0.0", "-replace=kusaw.dev/step=" + repo},
		{"mod", "tidy"},
	} {
		cmd := exec.Command("go", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GOPROXY=off", "GOWORK=off", "GOFLAGS=-mod=mod")
		if out, err := cmd.CombinedOutput(); err != nil {
			if strings.Contains(string(out), "GOPROXY=off") {
				t.Skipf("go %s needs a module that is not in the module cache, and this test runs offline:\n%s", strings.Join(args, " "), out)
			}
			t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	t.Chdir(dir)
	t.Setenv("GOWORK", "off")
	bin := steptest.Build(t, ".")
	if filepath.Base(bin) != "greet" {
		t.Errorf("Build(t, \".\") = %s; want a binary named greet", bin)
	}
	a := steptest.Run(t, []string{bin}, steptest.Options{Config: `{"name":"Ada"}`})
	a.Want(t, "ok", "greeted")
}
