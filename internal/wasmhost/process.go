package wasmhost

import (
	"sort"
	"sync"
)

// Process is the process-wide state Envoy keeps outside the VMs, keyed by
// vm_id: shared data, shared queues and the plugin's stats. All VMs of a
// Host share one Process; pass the same Process to a second Host (for
// instance, a configuration reload) to share it the way one Envoy process
// would. It is safe for concurrent use.
type Process struct {
	mu      sync.Mutex
	data    map[string]map[string]sharedValue // vm_id -> key -> value
	nextCAS uint32

	queueTokens map[queueKey]uint32
	queues      map[uint32]*sharedQueue
	nextToken   uint32

	metrics map[metricKey]*metric
}

type sharedValue struct {
	value []byte
	cas   uint32
}

type queueKey struct{ vmID, name string }

type sharedQueue struct {
	items [][]byte
	// The registering VM and root context get proxy_on_queue_ready; the last
	// registration wins, as in proxy-wasm-cpp-host.
	vm        *VM
	contextID uint32
}

type metricKey struct {
	vmID, name string
	typ        MetricType
}

type metric struct {
	typ   MetricType
	value int64 // counter and gauge
	// histogram
	count  uint64
	sum    uint64
	values []uint64
}

// maxHistogramValues bounds what a histogram keeps for Snapshot.
const maxHistogramValues = 4096

// NewProcess returns an empty Process.
func NewProcess() *Process {
	return &Process{
		data:        map[string]map[string]sharedValue{},
		nextCAS:     1,
		queueTokens: map[queueKey]uint32{},
		queues:      map[uint32]*sharedQueue{},
		nextToken:   1,
		metrics:     map[metricKey]*metric{},
	}
}

// SharedData returns the shared-data store of vmID (proxy_get_shared_data /
// proxy_set_shared_data of every VM with that vm_id).
func (p *Process) SharedData(vmID string) *SharedData {
	return &SharedData{p: p, vmID: vmID}
}

// SharedData is the shared key-value store of one vm_id, with
// proxy-wasm-cpp-host's semantics: every set gets a new CAS value from one
// process-wide counter; a set with CAS 0 is unconditional; a set with a CAS
// that no longer matches the stored one fails with CAS_MISMATCH; a set of a
// missing key always succeeds; there is no delete.
type SharedData struct {
	p    *Process
	vmID string
}

// Get returns a copy of the value of key and its CAS, or NOT_FOUND.
func (s *SharedData) Get(key string) ([]byte, uint32, Status) {
	s.p.mu.Lock()
	defer s.p.mu.Unlock()
	v, ok := s.p.data[s.vmID][key]
	if !ok {
		return nil, 0, StatusNotFound
	}
	return append([]byte(nil), v.value...), v.cas, StatusOK
}

// Set stores value under key (see SharedData for the CAS rules).
func (s *SharedData) Set(key string, value []byte, cas uint32) Status {
	s.p.mu.Lock()
	defer s.p.mu.Unlock()
	m := s.p.data[s.vmID]
	if m == nil {
		m = map[string]sharedValue{}
		s.p.data[s.vmID] = m
	}
	if old, ok := m[key]; ok && cas != 0 && cas != old.cas {
		return StatusCASMismatch
	}
	m[key] = sharedValue{value: append([]byte(nil), value...), cas: s.p.nextCASLocked()}
	return StatusOK
}

// Keys lists the stored keys, sorted. (Guests cannot list keys; tests use
// this to see how many keys a plugin leaves behind.)
func (s *SharedData) Keys() []string {
	s.p.mu.Lock()
	defer s.p.mu.Unlock()
	keys := make([]string, 0, len(s.p.data[s.vmID]))
	for k := range s.p.data[s.vmID] {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// Bytes is the total size of the stored keys and values.
func (s *SharedData) Bytes() int {
	s.p.mu.Lock()
	defer s.p.mu.Unlock()
	n := 0
	for k, v := range s.p.data[s.vmID] {
		n += len(k) + len(v.value)
	}
	return n
}

func (p *Process) nextCASLocked() uint32 {
	c := p.nextCAS
	p.nextCAS++
	if p.nextCAS == 0 {
		p.nextCAS = 1
	}
	return c
}

// registerQueue registers (or re-registers) the queue name of vmID for the
// root context contextID of vm and returns its token.
func (p *Process) registerQueue(vmID, name string, vm *VM, contextID uint32) uint32 {
	p.mu.Lock()
	defer p.mu.Unlock()
	k := queueKey{vmID, name}
	token, ok := p.queueTokens[k]
	if !ok {
		for {
			token = p.nextToken
			p.nextToken++
			if token != 0 && p.queues[token] == nil {
				break
			}
		}
		p.queueTokens[k] = token
		p.queues[token] = &sharedQueue{}
	}
	q := p.queues[token]
	q.vm, q.contextID = vm, contextID
	return token
}

func (p *Process) resolveQueue(vmID, name string) (uint32, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	token, ok := p.queueTokens[queueKey{vmID, name}]
	return token, ok
}

// enqueue appends to the queue and returns who must get proxy_on_queue_ready.
func (p *Process) enqueue(token uint32, value []byte) (*VM, uint32, Status) {
	p.mu.Lock()
	defer p.mu.Unlock()
	q := p.queues[token]
	if q == nil {
		return nil, 0, StatusNotFound
	}
	q.items = append(q.items, append([]byte(nil), value...))
	return q.vm, q.contextID, StatusOK
}

func (p *Process) dequeue(token uint32) ([]byte, Status) {
	p.mu.Lock()
	defer p.mu.Unlock()
	q := p.queues[token]
	if q == nil {
		return nil, StatusNotFound
	}
	if len(q.items) == 0 {
		return nil, StatusEmpty
	}
	v := q.items[0]
	q.items[0] = nil
	q.items = q.items[1:]
	return v, StatusOK
}

// QueueLen reports how many items the queue name of vmID holds (-1 if it
// is not registered).
func (p *Process) QueueLen(vmID, name string) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	token, ok := p.queueTokens[queueKey{vmID, name}]
	if !ok {
		return -1
	}
	return len(p.queues[token].items)
}

// Enqueue appends value to the queue name of vmID as another VM's
// proxy_enqueue_shared_queue would, and delivers proxy_on_queue_ready to the
// registered root context. It reports NOT_FOUND if no VM registered the queue.
func (p *Process) Enqueue(vmID, name string, value []byte) Status {
	token, ok := p.resolveQueue(vmID, name)
	if !ok {
		return StatusNotFound
	}
	vm, ctxID, st := p.enqueue(token, value)
	if st == StatusOK && vm != nil {
		vm.deliverQueueReady([]queueReady{{vm: vm, contextID: ctxID, token: token}})
	}
	return st
}

func (p *Process) metric(vmID, name string, typ MetricType) *metric {
	p.mu.Lock()
	defer p.mu.Unlock()
	k := metricKey{vmID, name, typ}
	m := p.metrics[k]
	if m == nil {
		m = &metric{typ: typ}
		p.metrics[k] = m
	}
	return m
}

// Envoy's rules: a counter only grows (offset <= 0 is BAD_ARGUMENT); a gauge
// adds or subtracts; get on a histogram is BAD_ARGUMENT.
func (p *Process) incrementMetric(m *metric, offset int64) Status {
	p.mu.Lock()
	defer p.mu.Unlock()
	switch m.typ {
	case MetricCounter:
		if offset <= 0 {
			return StatusBadArgument
		}
		m.value += offset
	case MetricGauge:
		m.value += offset
	default:
		return StatusBadArgument
	}
	return StatusOK
}

func (p *Process) recordMetric(m *metric, value uint64) Status {
	p.mu.Lock()
	defer p.mu.Unlock()
	switch m.typ {
	case MetricCounter:
		m.value += int64(value)
	case MetricGauge:
		m.value = int64(value)
	case MetricHistogram:
		m.count++
		m.sum += value
		if len(m.values) < maxHistogramValues {
			m.values = append(m.values, value)
		}
	}
	return StatusOK
}

func (p *Process) getMetric(m *metric) (uint64, Status) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if m.typ == MetricHistogram {
		return 0, StatusBadArgument
	}
	return uint64(m.value), StatusOK
}

// Metric is a snapshot of one plugin-defined metric.
type Metric struct {
	Name  string
	Type  MetricType
	Value int64 // counter and gauge
	// Histogram: how many values were recorded, their sum, and the first
	// values (up to 4096).
	Count  uint64
	Sum    uint64
	Values []uint64
}

// Metrics returns a snapshot of the metrics the VMs of vmID defined, by name.
// (Envoy exports them as stats prefixed "wasmcustom."; a counter and a gauge
// with the same name would collide here, and the counter wins.)
func (p *Process) Metrics(vmID string) map[string]Metric {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := map[string]Metric{}
	for k, m := range p.metrics {
		if k.vmID != vmID {
			continue
		}
		if old, ok := out[k.name]; ok && old.Type < m.typ {
			continue
		}
		out[k.name] = Metric{
			Name: k.name, Type: m.typ, Value: m.value,
			Count: m.count, Sum: m.sum, Values: append([]uint64(nil), m.values...),
		}
	}
	return out
}
