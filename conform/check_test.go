package conform_test

import (
	"errors"
	"maps"
	"slices"
	"strings"
	"testing"

	"kusaw.dev/step/conform"
)

func TestChecksWellFormed(t *testing.T) {
	seen := make(map[string]bool)
	for _, c := range conform.Checks {
		if seen[c.ID] {
			t.Errorf("check %s listed twice", c.ID)
		}
		seen[c.ID] = true
		if c.Spec == "" || c.Title == "" || (c.Level != conform.Must && c.Level != conform.Should) {
			t.Errorf("check %+v: want a spec, a title and a level", c)
		}
	}
}

func TestSelection(t *testing.T) {
	for _, tc := range []struct {
		name    string
		sel     conform.Selection
		want    []string // the selected ids; nil means check only the count
		count   int
		wantErr error
	}{
		{name: "all", count: len(conform.Checks)},
		{name: "one", sel: conform.Selection{Focus: []string{"HS-004"}}, want: []string{"HS-004"}},
		{name: "prefix", sel: conform.Selection{Focus: []string{"IA"}}, want: []string{"IA-001"}},
		{name: "glob, lower case", sel: conform.Selection{Focus: []string{"at-01?"}}, want: []string{"AT-010", "AT-011", "AT-012", "AT-013", "AT-014", "AT-015", "AT-016"}},
		{name: "focus then skip", sel: conform.Selection{Focus: []string{"AT-01"}, Skip: []string{"AT-012", "AT-013", "AT-014", "AT-015", "AT-016"}}, want: []string{"AT-010", "AT-011"}},
		{name: "skip all", sel: conform.Selection{Skip: []string{"HS", "AT", "IA", "EX"}}, wantErr: conform.ErrSelection},
		{name: "no match", sel: conform.Selection{Focus: []string{"XX-001"}}, wantErr: conform.ErrSelection},
		{name: "bad glob", sel: conform.Selection{Focus: []string{"AT-[1"}}, wantErr: conform.ErrSelection},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := tc.sel.Selected()
			if !errors.Is(err, tc.wantErr) {
				t.Fatalf("Selected() error = %v; want %v", err, tc.wantErr)
			}
			ids := slices.Sorted(maps.Keys(got))
			if tc.want != nil && !slices.Equal(ids, tc.want) {
				t.Errorf("Selected() = %v; want %v", ids, tc.want)
			}
			if tc.count != 0 && len(ids) != tc.count {
				t.Errorf("Selected() chose %d checks; want %d", len(ids), tc.count)
			}
		})
	}
}

// TestRunSelection runs only the handshake checks on the shell example:
// attempt checks are not reported, and an empty selection is an error
// before anything runs.
func TestRunSelection(t *testing.T) {
	opts := quick(t)
	opts.Command = []string{"../examples/steps/shell/hello.sh"}
	opts.Selection = conform.Selection{Focus: []string{"HS"}, Skip: []string{"HS-007"}}
	rep, err := conform.Run(t.Context(), opts)
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range rep.Outcomes {
		if !strings.HasPrefix(o.ID, "HS") || o.ID == "HS-007" {
			t.Errorf("outcome %s reported; only HS checks but HS-007 were selected", o.ID)
		}
	}
	if len(rep.Outcomes) != 8 || !rep.Passed() {
		t.Errorf("%d outcomes, passed %v; want 8, true\n%s", len(rep.Outcomes), rep.Passed(), table(t, rep))
	}
	opts.Selection = conform.Selection{Focus: []string{"ZZ"}}
	if _, err := conform.Run(t.Context(), opts); !errors.Is(err, conform.ErrSelection) {
		t.Errorf("Run with an empty selection: %v; want ErrSelection", err)
	}
}
