package wasmhost

import (
	"fmt"
	"strconv"
	"sync"
	"testing"
)

func TestSharedDataCAS(t *testing.T) {
	p := NewProcess()
	d := p.SharedData("vm")
	if _, _, st := d.Get("k"); st != StatusNotFound {
		t.Fatalf("get of a missing key: %s", st)
	}
	// A set of a missing key succeeds whatever CAS it carries.
	if st := d.Set("k", []byte("v1"), 12345); st != StatusOK {
		t.Fatalf("set missing key with cas: %s", st)
	}
	v, cas1, st := d.Get("k")
	if st != StatusOK || string(v) != "v1" || cas1 == 0 {
		t.Fatalf("get = %q %d %s", v, cas1, st)
	}
	if st := d.Set("k", []byte("v2"), cas1); st != StatusOK {
		t.Fatalf("set with the current cas: %s", st)
	}
	_, cas2, _ := d.Get("k")
	if cas2 == cas1 {
		t.Fatalf("cas not bumped: %d", cas2)
	}
	if st := d.Set("k", []byte("stale"), cas1); st != StatusCASMismatch {
		t.Fatalf("set with a stale cas: %s", st)
	}
	if v, _, _ := d.Get("k"); string(v) != "v2" {
		t.Fatalf("a failed set changed the value: %q", v)
	}
	if st := d.Set("k", []byte("v3"), 0); st != StatusOK {
		t.Fatalf("unconditional set: %s", st)
	}
	_, cas3, _ := d.Get("k")
	if cas3 == cas2 {
		t.Fatal("an unconditional set did not bump the cas")
	}
	// Another key and another vm_id: one process-wide CAS counter, separate maps.
	d.Set("other", nil, 0)
	if _, c, _ := d.Get("other"); c <= cas3 {
		t.Fatalf("cas is not process-wide: %d after %d", c, cas3)
	}
	if _, _, st := p.SharedData("vm2").Get("k"); st != StatusNotFound {
		t.Fatal("vm_ids share data")
	}
	if v, _, st := d.Get("other"); st != StatusOK || len(v) != 0 {
		t.Fatalf("empty value: %q %s", v, st)
	}
	if got := d.Keys(); len(got) != 2 || got[0] != "k" || got[1] != "other" {
		t.Fatalf("Keys = %v", got)
	}
}

// Concurrent read-modify-write with CAS retries loses no update.
func TestSharedDataCASConcurrent(t *testing.T) {
	d := NewProcess().SharedData("vm")
	// Created first: a CAS of 0 (what a plugin has for a missing key)
	// would make the set unconditional.
	d.Set("n", []byte("0"), 0)
	const workers, each = 8, 200
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < each; i++ {
				for {
					v, cas, _ := d.Get("n")
					n, _ := strconv.Atoi(string(v))
					if d.Set("n", []byte(strconv.Itoa(n+1)), cas) == StatusOK {
						break
					}
				}
			}
		}()
	}
	wg.Wait()
	v, _, _ := d.Get("n")
	if n, _ := strconv.Atoi(string(v)); n != workers*each {
		t.Fatalf("n = %d, want %d", n, workers*each)
	}
}

func TestSharedQueues(t *testing.T) {
	p := NewProcess()
	if _, ok := p.resolveQueue("vm", "q"); ok {
		t.Fatal("resolved an unregistered queue")
	}
	tok := p.registerQueue("vm", "q", nil, 1)
	if tok2 := p.registerQueue("vm", "q", nil, 1); tok2 != tok {
		t.Fatalf("re-registering changed the token: %d %d", tok, tok2)
	}
	if tok3 := p.registerQueue("other", "q", nil, 1); tok3 == tok {
		t.Fatal("queues of different vm_ids share a token")
	}
	if got, ok := p.resolveQueue("vm", "q"); !ok || got != tok {
		t.Fatalf("resolve = %d %v", got, ok)
	}
	if _, st := p.dequeue(tok); st != StatusEmpty {
		t.Fatalf("dequeue of an empty queue: %s", st)
	}
	if _, st := p.dequeue(9999); st != StatusNotFound {
		t.Fatalf("dequeue of an unknown token: %s", st)
	}
	if _, _, st := p.enqueue(9999, nil); st != StatusNotFound {
		t.Fatalf("enqueue to an unknown token: %s", st)
	}
	for i := 0; i < 3; i++ {
		p.enqueue(tok, []byte(fmt.Sprint(i)))
	}
	if n := p.QueueLen("vm", "q"); n != 3 {
		t.Fatalf("QueueLen = %d", n)
	}
	for i := 0; i < 3; i++ {
		v, st := p.dequeue(tok)
		if st != StatusOK || string(v) != fmt.Sprint(i) {
			t.Fatalf("dequeue %d = %q %s (not FIFO)", i, v, st)
		}
	}
}

func TestMetricRules(t *testing.T) {
	p := NewProcess()
	c := p.metric("vm", "c", MetricCounter)
	if p.metric("vm", "c", MetricCounter) != c {
		t.Fatal("same name and type must be one stat")
	}
	if st := p.incrementMetric(c, 0); st != StatusBadArgument {
		t.Fatalf("counter += 0: %s (Envoy refuses offsets <= 0)", st)
	}
	p.incrementMetric(c, 5)
	p.recordMetric(c, 2)
	if v, _ := p.getMetric(c); v != 7 {
		t.Fatalf("counter = %d", v)
	}
	g := p.metric("vm", "g", MetricGauge)
	p.incrementMetric(g, 10)
	p.incrementMetric(g, -4)
	if v, _ := p.getMetric(g); int64(v) != 6 {
		t.Fatalf("gauge = %d", int64(v))
	}
	p.recordMetric(g, 42)
	h := p.metric("vm", "h", MetricHistogram)
	p.recordMetric(h, 3)
	p.recordMetric(h, 4)
	if _, st := p.getMetric(h); st != StatusBadArgument {
		t.Fatalf("get of a histogram: %s", st)
	}
	m := p.Metrics("vm")
	if m["g"].Value != 42 || m["h"].Count != 2 || m["h"].Sum != 7 || m["c"].Value != 7 {
		t.Fatalf("Metrics = %+v", m)
	}
	if len(p.Metrics("other")) != 0 {
		t.Fatal("metrics leak across vm_ids")
	}
}
