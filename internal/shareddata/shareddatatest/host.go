// Package shareddatatest provides a shared-data store for tests with the
// exact semantics of proxy-wasm-cpp-host, safe for the goroutines that
// stand for worker VMs.
package shareddatatest

import (
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
