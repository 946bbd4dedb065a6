package auditring

import (
	"encoding/json"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/cloudg/mcp-privacy/internal/shareddata"
	"github.com/cloudg/mcp-privacy/internal/shareddata/shareddatatest"
)

// record is a record named name, with room for its header.
func record(name string) []byte {
	return append(make([]byte, HeaderLen), `{"name":"`+name+`"}`...)
}

func names(t *testing.T, es [][]byte) string {
	t.Helper()
	var out []string
	for _, e := range es {
		var m map[string]any
		if err := json.Unmarshal(e, &m); err != nil {
			t.Fatal(err)
		}
		out = append(out, m["name"].(string))
	}
	return strings.Join(out, ",")
}

func TestRing(t *testing.T) {
	store := shareddatatest.NewHost()
	const prefix = "mcp-privacy|srv|audit|"
	r := New(store, prefix)
	if r.Recent(5, 3) != nil {
		t.Error("records before any append")
	}
	for i := range 5 {
		if !r.Append(record("t"+strconv.Itoa(i)), 3) {
			t.Fatalf("record %d not stored", i)
		}
	}
	if got := names(t, r.Recent(10, 3)); got != "t4,t3,t2" {
		t.Errorf("Recent(10) = %s, want t4,t3,t2", got)
	}
	if got := names(t, r.Recent(2, 3)); got != "t4,t3" {
		t.Errorf("Recent(2) = %s", got)
	}
	if n := store.Keys(""); n != 4 {
		t.Errorf("%d keys, want head + 3 slots", n)
	}
	if n := store.Keys(prefix); n != 4 {
		t.Errorf("%d keys under the prefix, want 4", n)
	}
	if got := string(AppendJSON(nil, r.Recent(2, 3))); got != `[{"name":"t4"},{"name":"t3"}]` {
		t.Errorf("AppendJSON: %s", got)
	}
	if got := string(AppendJSON(nil, nil)); got != `[]` {
		t.Errorf("AppendJSON of none: %s", got)
	}
	// Another size after a reload: slots written with the old size are
	// never read as the wrong record (some old records are lost).
	r2 := New(store, prefix) // another VM, after a reload
	r2.Append(record("t5"), 5)
	got := strings.Split(names(t, r2.Recent(10, 5)), ",")
	for i := range got {
		if got[0] != "t5" || i > 0 && got[i] >= got[i-1] {
			t.Errorf("after resizing: %s, want t5 then older records, newest first", got)
			break
		}
	}
	// Another prefix has its own ring.
	if New(store, "mcp-privacy|other|audit|").Recent(10, 5) != nil {
		t.Error("another prefix's records")
	}
	// Without a host store, records stay in this VM.
	local := New(nil, prefix)
	local.Append(record("x"), 2)
	if got := names(t, local.Recent(10, 2)); got != "x" {
		t.Errorf("local ring: %s", got)
	}
}

// Worker VMs appending at once lose nothing while the ring has room, and
// each record is stored once.
func TestRingConcurrentAppend(t *testing.T) {
	store := shareddatatest.NewHost()
	var wg sync.WaitGroup
	for vm := range 4 {
		r := New(store, "p|")
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 200 {
				if !r.Append(record(strconv.Itoa(vm)+"-"+strconv.Itoa(i)), 1000) {
					t.Error("record not stored")
				}
			}
		}()
	}
	wg.Wait()
	es := New(store, "p|").Recent(2000, 1000)
	if len(es) != 800 {
		t.Fatalf("%d records, want 800", len(es))
	}
	seen := map[string]bool{}
	for _, n := range strings.Split(names(t, es), ",") {
		seen[n] = true
	}
	if len(seen) != 800 {
		t.Errorf("%d distinct records, want 800", len(seen))
	}
}

func BenchmarkRingAppend(b *testing.B) {
	for _, s := range []struct {
		name  string
		store func() shareddata.Store
	}{{"local", func() shareddata.Store { return nil }}, {"host", func() shareddata.Store { return shareddatatest.NewHost() }}} {
		b.Run(s.name, func(b *testing.B) {
			r := New(s.store(), "p|")
			buf := record("t")
			b.ReportAllocs()
			for range b.N {
				r.Append(buf, 1000)
			}
		})
	}
}
