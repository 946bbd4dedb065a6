// Package auditring keeps the most recent records of a bounded trail in
// the host's shared data, where every worker VM appends and reads: a ring
// buffer of a given size over a store with compare-and-swap and no delete.
// What a record says is the caller's (plugin/mcp's audit entries); the
// package knows nothing of MCP or of the host.
//
// The ring is a head key holding the sequence number of the next record
// and size slot keys. An append claims a number by advancing the head with
// CAS, then writes slot number % size; each slot holds its number, so a
// reader skips a slot not written yet or already reused, and a slow writer
// never overwrites a newer record. Both are O(1) host calls per record,
// whatever the size.
package auditring

import (
	"encoding/binary"
	"strconv"

	"github.com/cloudg/mcp-privacy/internal/shareddata"
)

// HeaderLen is the room a record leaves in front of it for its sequence
// number, so that Append stores it without a copy.
const HeaderLen = 8

// casTries bounds the CAS retries of one claim or one slot write; beyond
// it the record is not stored. Each failure means another VM wrote the
// key meanwhile.
const casTries = 256

// Ring is a ring buffer of records in shared data, under keys that start
// with a prefix. It keeps no state but the store, so every VM's Ring over
// the same store and prefix sees the same records.
type Ring struct {
	shared shareddata.Store
	prefix string
}

// New returns a ring over shared (nil: a store of this VM only) under keys
// prefix+"head" and prefix+<slot>.
func New(shared shareddata.Store, prefix string) *Ring {
	if shared == nil {
		shared = shareddata.NewLocal()
	}
	return &Ring{shared: shared, prefix: prefix}
}

func (r *Ring) headKey() string { return r.prefix + "head" }

func (r *Ring) slotKey(seq uint64, size int) string {
	return r.prefix + strconv.FormatUint(seq%uint64(size), 10)
}

// Append stores a record in a ring of size slots (size > 0): buf is
// HeaderLen bytes the ring overwrites with the record's sequence number,
// then the record. It reports whether the record was stored (false under
// shared-data contention beyond retries, or when a newer record already
// took its slot).
func (r *Ring) Append(buf []byte, size int) bool {
	seq, ok := r.claim()
	if !ok {
		return false
	}
	binary.BigEndian.PutUint64(buf, seq)
	key := r.slotKey(seq, size)
	for range casTries {
		v, cas, ok := r.shared.Get(key)
		if !ok {
			if shareddata.Create(r.shared, key, buf) {
				return true
			}
			continue
		}
		if len(v) >= HeaderLen && binary.BigEndian.Uint64(v) > seq {
			return false // a newer record already took the slot
		}
		if r.shared.Set(key, buf, cas) {
			return true
		}
	}
	return false
}

// claim takes the next sequence number.
func (r *Ring) claim() (uint64, bool) {
	key := r.headKey()
	var next [8]byte
	for range casTries {
		v, cas, ok := r.shared.Get(key)
		var seq uint64
		if ok && len(v) == 8 {
			seq = binary.BigEndian.Uint64(v)
		}
		binary.BigEndian.PutUint64(next[:], seq+1)
		var set bool
		if ok {
			set = r.shared.Set(key, next[:], cas)
		} else {
			set = shareddata.Create(r.shared, key, next[:])
		}
		if set {
			return seq, true
		}
	}
	return 0, false
}

// Recent returns up to n of the most recent stored records, newest first,
// without their headers, from a ring of size slots.
func (r *Ring) Recent(n, size int) [][]byte {
	if n <= 0 || size <= 0 {
		return nil
	}
	v, _, ok := r.shared.Get(r.headKey())
	if !ok || len(v) != 8 {
		return nil
	}
	head := binary.BigEndian.Uint64(v)
	var out [][]byte
	for i := uint64(0); i < uint64(size) && i < head && len(out) < n; i++ {
		seq := head - 1 - i
		e, _, ok := r.shared.Get(r.slotKey(seq, size))
		if !ok || len(e) < HeaderLen+1 || binary.BigEndian.Uint64(e) != seq {
			continue // not written yet, or reused by a newer record
		}
		out = append(out, append([]byte(nil), e[HeaderLen:]...))
	}
	return out
}

// AppendJSON appends records from Recent, each a JSON value, as a JSON
// array.
func AppendJSON(out []byte, records [][]byte) []byte {
	out = append(out, '[')
	for i, e := range records {
		if i > 0 {
			out = append(out, ',')
		}
		out = append(out, e...)
	}
	return append(out, ']')
}
