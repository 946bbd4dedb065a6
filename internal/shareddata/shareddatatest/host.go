// Package shareddatatest provides a shared-data store for tests with the
// exact semantics of proxy-wasm-cpp-host, safe for the goroutines that
// stand for worker VMs.
package shareddatatest

import (
	"maps"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
)

// Host is shared data with proxy-wasm-cpp-host's exact semantics: one CAS
// counter for the store, a set with CAS 0 or of a missing key always
// succeeds, no delete. OnSet, when set, runs before each set outside the
// lock (to interleave another VM's work at that point).
type Host struct {
	mu   sync.Mutex
	m    map[string]entry
	next uint32
	// Sets counts set calls, successful or not.
	Sets  atomic.Int64
	OnSet func(key string)
}

type entry struct {
	v   []byte
	cas uint32
}

// NewHost returns an empty store.
func NewHost() *Host { return &Host{m: map[string]entry{}, next: 1} }

// Get returns a copy of the value and its CAS; ok is false when absent.
func (s *Host) Get(key string) ([]byte, uint32, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	e, ok := s.m[key]
	return append([]byte(nil), e.v...), e.cas, ok
}

// Set stores a copy of v if cas matches (0, or the key is absent:
// unconditionally).
func (s *Host) Set(key string, v []byte, cas uint32) bool {
	if s.OnSet != nil {
		s.OnSet(key)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.Sets.Add(1)
	if e, ok := s.m[key]; ok && cas != 0 && cas != e.cas {
		return false
	}
	s.m[key] = entry{append([]byte(nil), v...), s.next}
	s.next++
	if s.next == 0 {
		s.next = 1
	}
	return true
}

// Keys counts the keys that start with prefix.
func (s *Host) Keys(prefix string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for k := range s.m {
		if strings.HasPrefix(k, prefix) {
			n++
		}
	}
	return n
}

// PerKey is a stricter store than the host: a CAS per key, and a set with
// a CAS for a key that does not exist is refused (proxy-wasm-cpp-host
// sets it). Code that holds to both behaviours is right on either.
type PerKey struct {
	mu sync.Mutex
	m  map[string]entry
}

// NewPerKey returns an empty store.
func NewPerKey() *PerKey { return &PerKey{m: map[string]entry{}} }

// Get returns the value and its CAS; ok is false when absent.
func (s *PerKey) Get(key string) ([]byte, uint32, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	e, ok := s.m[key]
	return e.v, e.cas, ok
}

// Set stores a copy of v if cas is 0 or the key's current CAS.
func (s *PerKey) Set(key string, v []byte, cas uint32) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	e := s.m[key]
	if cas != 0 && cas != e.cas {
		return false
	}
	s.m[key] = entry{append([]byte(nil), v...), e.cas + 1}
	return true
}

// Keys returns every key, sorted.
func (s *PerKey) Keys() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Sorted(maps.Keys(s.m))
}
