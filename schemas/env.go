package schemas

import (
	"encoding/json"
	"fmt"
	"slices"
	"sync"
)

// EnvVar is one row of the protocol's environment-variable table.
type EnvVar struct {
	Name        string `json:"name"`
	When        string `json:"when"` // "handshake and attempt", "every attempt", "optional" or "interactive"
	Description string `json:"description"`
}

// EnvVars returns the environment variables the step adapter sets, in the
// spec's order. The slice is the caller's.
func EnvVars() []EnvVar { return slices.Clone(envVars()) }

// envVars decodes the embedded table once: every handshake and attempt
// reads it.
var envVars = sync.OnceValue(func() []EnvVar {
	data, err := FS.ReadFile("env.json")
	if err != nil {
		panic(err) // embedded: cannot happen
	}
	var doc struct {
		Variables []EnvVar `json:"variables"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		panic(fmt.Sprintf("schemas: env.json: %v", err))
	}
	return doc.Variables
})
