package detect

// Clean reports whether the detectors sel selects surely find nothing in
// s, looking at it in one loop without starting a pass: s reads as it is
// (no byte the reader view changes: non-ASCII, '\\', '%', '&') and no
// pair of its bytes is a trigger in sel's table. The pass calls a step
// only at a trigger, so a string without one has no detection: Clean(s)
// implies that Detect(s, sel) is empty (TestCleanFindsNothing,
// FuzzClean). False with custom detectors, whose patterns may match
// anything.
//
// Most strings of a message are prose or names without a trigger (a
// tool's title and description, a customer's name); for them this is the
// whole of the scan, where DetectAppend would take its scratch, build the
// reader view and set up a pass, which in the VM costs several times the
// look.
func (ds *Set) Clean(s string, sel *Selection) bool {
	if len(ds.custom) > 0 {
		return false
	}
	if ds.dicts && ds.dictsWanted(sel) && !ds.dictsClean(s, sel) {
		return false
	}
	on := ds.builtins & sel.builtins
	if on == 0 {
		return true // no detector runs (the pass would not start)
	}
	if fam := on & familyMask; fam != 0 && !familiesCleanWith(s, fam, ds.extra) {
		return false
	}
	tab := sel.tab
	n := len(s)
	var prev uint64 // the byte before i (0 at the start, as in the pass)
	i := 0
	for ; i+8 <= n; i += 8 {
		x := load64(s, i)
		m := uint64(tab[uint16(x<<8|prev)]) | uint64(tab[uint16(x)]) | uint64(tab[uint16(x>>8)]) | uint64(tab[uint16(x>>16)]) |
			uint64(tab[uint16(x>>24)]) | uint64(tab[uint16(x>>32)]) | uint64(tab[uint16(x>>40)]) | uint64(tab[uint16(x>>48)])
		if m|special8(x)&swarHigh != 0 {
			return false
		}
		prev = x >> 56
	}
	if i == n {
		return true
	}
	// The last bytes as the low lanes of x, NUL above them: no pair ending
	// in NUL triggers, and special8 flags no NUL.
	x := tailWord(s, i)
	m := uint64(tab[uint16(x<<8|prev)]) | uint64(tab[uint16(x)]) | uint64(tab[uint16(x>>8)]) | uint64(tab[uint16(x>>16)]) |
		uint64(tab[uint16(x>>24)]) | uint64(tab[uint16(x>>32)]) | uint64(tab[uint16(x>>40)])
	return m|special8(x)&swarHigh == 0
}
