//go:build race

package mcp

// raceEnabled: the race detector adds allocations, so allocation counts are
// only asserted without it (make test runs the suite both ways).
const raceEnabled = true
