package detect

// wordTable is a read-only set of lower-case words, each with a nonzero
// value, looked up with the word's letters folded on the way: open
// addressing over FNV-1a, each slot compared in place. The address and
// date scans look a word up at most of their candidates, where a map's
// lookup of a string costs, in the VM, a copy into a buffer, a hash call
// without the host's AES instructions, and a compare call.
type wordTable struct {
	slots  []wordSlot
	mask   uint32
	latin1 bool // À-Þ fold to à-þ too (lowerKey), not only A-Z
}

type wordSlot struct {
	word string
	hash uint32
	val  uint16 // 0: an empty slot
}

// wordTableMax is the longest word a wordTable holds or looks up.
const wordTableMax = 24

// newWordTable holds the words of m (lower case, at most wordTableMax
// bytes, values nonzero), at most half its slots used.
func newWordTable(m map[string]uint16, latin1 bool) *wordTable {
	n := 8
	for n < 2*len(m) {
		n *= 2
	}
	t := &wordTable{slots: make([]wordSlot, n), mask: uint32(n - 1), latin1: latin1}
	for w, v := range m {
		if v == 0 || len(w) > wordTableMax {
			panic("detect: wordTable: " + w)
		}
		h := t.hash(w)
		i := h & t.mask
		for t.slots[i].val != 0 {
			i = (i + 1) & t.mask
		}
		t.slots[i] = wordSlot{w, h, v}
	}
	return t
}

// fold is w[k] folded as the table folds.
func (t *wordTable) fold(w string, k int) byte {
	c := w[k]
	if c-'A' < 26 {
		return c + 'a' - 'A'
	}
	if t.latin1 && k > 0 && w[k-1] == 0xc3 && c >= 0x80 && c <= 0x9e && c != 0x97 {
		return c + 0x20
	}
	return c
}

func (t *wordTable) hash(w string) uint32 {
	h := uint32(2166136261)
	for k := 0; k < len(w); k++ {
		h = (h ^ uint32(t.fold(w, k))) * 16777619
	}
	return h ^ h>>15
}

// get is the value of w, folded (0: not held).
func (t *wordTable) get(w string) uint16 {
	if len(w) == 0 || len(w) > wordTableMax {
		return 0
	}
	h := t.hash(w)
	for i := h & t.mask; ; i = (i + 1) & t.mask {
		sl := &t.slots[i]
		if sl.val == 0 {
			return 0
		}
		if sl.hash == h && len(sl.word) == len(w) {
			k := 0
			for k < len(w) && t.fold(w, k) == sl.word[k] {
				k++
			}
			if k == len(w) {
				return sl.val
			}
		}
	}
}
