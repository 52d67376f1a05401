//go:build unix && !linux

package proc_test

import (
	"errors"
	"testing"

	"kusaw.dev/step/internal/proc"
)

func TestBecomeSubreaperUnsupported(t *testing.T) {
	if err := proc.BecomeSubreaper(); !errors.Is(err, proc.ErrUnsupported) {
		t.Errorf("BecomeSubreaper() = %v; want ErrUnsupported", err)
	}
}
