package slipway_test

import (
	"encoding/json"
	"strconv"
)

// sourceEnvelope is an issue-backed source with five sections.
var sourceEnvelope = `{"source_version":2,"provider":"github","host":"github.com","repository_id":"R_kgDOA1",` +
	`"issue_id":"I_kwDOA1","issue_number":7,"canonical_url":"https://github.com/acme/app/issues/7",` +
	`"updated_at":"2026-11-30T00:00:00Z","fetched_at":"2026-11-30T00:00:01Z","title":"Greeting","body":"x","labels":[],` +
	`"comments":[` + comment(1, "The app greets.") + `,` + comment(2, "Print hello.") + `,` + comment(3, "hello -> hello") +
	`,` + comment(4, "No new deps.") + `,` + comment(5, "No i18n.") + `]}`

func comment(n int, body string) string {
	b, _ := json.Marshal(body)
	id := strconv.Itoa(n)
	return `{"node_id":"IC_` + id + `","database_id":` + id + `,"url":"https://github.com/acme/app/issues/7#issuecomment-` + id +
		`","updated_at":"2026-11-30T00:00:00Z","author_id":"U_1","is_minimized":false,"body":` + string(b) + `}`
}
