package mcp

import "testing"

// TestToolsCallAllocations holds a judged tools/call to its allocation
// budget (BenchmarkToolsCall's path): the stream itself, the call record,
// the transform run, the judged primitive, a copied string, the test's
// headers. A regression: judging through
// internal/catalog's Judge once kept a pointer to the stream's principal
// in closures that escape, which moved every stream to the heap.
func TestToolsCallAllocations(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts are asserted without -race")
	}
	call, _ := toolsCallRun(t)
	const budget = 8
	n := testing.AllocsPerRun(200, call)
	if n > budget {
		t.Errorf("a tools/call costs %v allocations, budget %d", n, budget)
	}
}
