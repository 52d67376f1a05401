package sandbox

import (
	"flag"
	"os"
	"path/filepath"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

func TestSeatbeltProfile(t *testing.T) {
	for _, tc := range []struct {
		name string
		pol  *Policy
		port int
	}{
		{"allowlist", &Policy{Backend: BackendSeatbelt, Network: NetworkAllowlist,
			Writable: []string{"/Users/me/work tree", `/tmp/odd"name\`}}, 50123},
		{"open", &Policy{Backend: BackendSeatbelt, Network: NetworkOpen}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := SeatbeltProfile(tc.pol, tc.port)
			golden := filepath.Join("testdata", "seatbelt-"+tc.name+".sb")
			if *update {
				if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test -update)", err)
			}
			if got != string(want) {
				t.Errorf("SeatbeltProfile differs from %s:\n%s", golden, got)
			}
		})
	}
}
