//go:build race

package tail_test

const raceEnabled = true
