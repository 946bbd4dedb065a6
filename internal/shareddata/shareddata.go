// Package shareddata is the host's process-wide key-value store as the
// plugin's packages see it (proxy-wasm shared data: one store per vm_id,
// shared by every worker VM of an Envoy, with compare-and-swap and no
// delete), a store of one VM for when there is no host, and the one way to
// create a key without overwriting another VM's. Package main implements
// Store over the SDK; nothing here knows of the host or of MCP.
package shareddata

// Store is the host's shared data.
type Store interface {
	// Get returns the value and its CAS token; ok is false when absent.
	Get(key string) (value []byte, cas uint32, ok bool)
	// Set stores value if cas still matches (0: unconditionally) and
	// reports whether it did.
	Set(key string, value []byte, cas uint32) bool
}

// createCAS is the CAS for creating a key. A set with CAS 0 is
// unconditional, and a set of a missing key always succeeds whatever the
// CAS (proxy-wasm-cpp-host SharedData::set); this value only matches a key
// whose stored CAS is exactly it (one in 2^32 set operations), so a key
// another VM created meanwhile is not overwritten.
const createCAS = 0xFFFFFFFF

// Create sets a key that was absent, without overwriting it if another VM
// created it meanwhile; false when it did. (A store that refuses a non-zero
// CAS for a missing key, unlike proxy-wasm hosts, gets a set with CAS 0
// instead.)
func Create(s Store, key string, v []byte) bool {
	if s.Set(key, v, createCAS) {
		return true
	}
	if _, _, ok := s.Get(key); !ok {
		// The store refuses a CAS for a missing key (not proxy-wasm's
		// semantics): create it unconditionally.
		return s.Set(key, v, 0)
	}
	return false
}

// Local is shared data for one VM (no host store): proxy-wasm's
// semantics, a CAS bumped on every set, no delete. It is not safe for
// concurrent use (a VM runs one callback at a time).
type Local struct {
	m   map[string]localValue
	cas uint32
}

type localValue struct {
	v   []byte
	cas uint32
}

// NewLocal returns an empty store of this VM only.
func NewLocal() *Local { return &Local{m: map[string]localValue{}, cas: 1} }

// Get returns the value and its CAS token; ok is false when absent.
func (s *Local) Get(key string) ([]byte, uint32, bool) {
	e, ok := s.m[key]
	return e.v, e.cas, ok
}

// Set stores a copy of v if cas matches (0, or the key is absent:
// unconditionally) and reports whether it did.
func (s *Local) Set(key string, v []byte, cas uint32) bool {
	if e, ok := s.m[key]; ok && cas != 0 && cas != e.cas {
		return false
	}
	s.m[key] = localValue{append([]byte(nil), v...), s.cas}
	s.cas++
	if s.cas == 0 {
		s.cas = 1
	}
	return true
}
