//go:build !race

package step_test

const raceEnabled = false
