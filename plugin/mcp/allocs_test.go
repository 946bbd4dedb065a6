package mcp

import "testing"

// TestToolsCallAllocations holds a judged tools/call to its allocation
// budget (BenchmarkToolsCall's path): the stream itself (which holds the
// body's parse, the first call record, transform run and judged
// primitive), a copied string, and the test's own (its Request made an
// interface, as the host glue's is). A regression: judging
// through
// internal/catalog's Judge once kept a pointer to the stream's principal
// in closures that escape, which moved every stream to the heap.
func TestToolsCallAllocations(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts are asserted without -race")
	}
	call, _ := toolsCallRun(t)
	const budget = 4
	n := testing.AllocsPerRun(200, call)
	if n > budget {
		t.Errorf("a tools/call costs %v allocations, budget %d", n, budget)
	}
}
