package slipway

// OutcomeContract is the Outcome contract a provider agent is told, for
// the tests.
func OutcomeContract() string { return outcomeContract }
