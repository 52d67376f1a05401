//go:build race

package step_test

const raceEnabled = true
