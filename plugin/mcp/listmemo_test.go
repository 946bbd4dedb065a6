package mcp

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// lmPolicy is a random envelope: tool and prompt globs denied and
// allowed, roles, rules matching principals and categories, hide_denied
// or not, sometimes require_known, sometimes an email redacted.
func lmPolicy(r *rand.Rand) string {
	globs := []string{"admin_*", "get_*", "*_db", "search", "delete_*", "x*"}
	pick := func() string { return fmt.Sprintf("%q", globs[r.IntN(len(globs))]) }
	var b strings.Builder
	fmt.Fprintf(&b, `{"policy":{"name":"lm","vault":{"key":"list memo key"},"extends":%q,"hide_denied":%v,"deny_tools":[%s],"deny_prompts":[%s],`,
		[]string{"standard", "permissive"}[r.IntN(2)], r.IntN(3) > 0, pick(), pick())
	fmt.Fprintf(&b, `"roles":{"admin":{"allow_tools":[%s],"allow_capabilities":["exec"]},"ops":{"deny_tools":[%s]}},`, pick(), pick())
	fmt.Fprintf(&b, `"rules":[{"name":"r1","match":{"principals":["alice"]},"deny_tools":[%s]},`, pick())
	fmt.Fprintf(&b, `{"name":"r2","match":{"categories":["hr"]},"deny_tools":["*"]}]},`)
	fmt.Fprintf(&b, `"server":{"require_known":%v,"learn_from_lists":%v},`, r.IntN(4) == 0, r.IntN(4) > 0)
	b.WriteString(`"identity":{"principal":[{"header":"x-mcp-principal"}],"roles":[{"header":"x-mcp-roles"}]}}`)
	return b.String()
}

// lmList is a random tools/list or prompts/list result: names from a
// small pool, some with privacy metadata, a few descriptions holding an
// e-mail address (which the standard profile's pipeline changes).
func lmList(r *rand.Rand, id int, method string) string {
	names := []string{"admin_users", "get_order", "search", "delete_db", "xray", "plain", "get_db", "report"}
	items, key := "tools", "name"
	if method == "prompts/list" {
		items = "prompts"
	}
	var b strings.Builder
	fmt.Fprintf(&b, `{"jsonrpc":"2.0","id":%d,"result":{"%s":[`, id, items)
	for i, n := range r.Perm(len(names))[:3+r.IntN(5)] {
		if i > 0 {
			b.WriteByte(',')
		}
		desc := "does " + names[n]
		if r.IntN(8) == 0 {
			desc += ", mail ann.lee@example.com"
		}
		fmt.Fprintf(&b, `{"%s":%q,"description":%q`, key, names[n], desc)
		switch r.IntN(4) {
		case 0:
			b.WriteString(`,"_meta":{"io.cloudg/privacy":{"category":"hr"}}`)
		case 1:
			b.WriteString(`,"_meta":{"io.cloudg/privacy":{"capabilities":["exec"],"sensitivity":"restricted"}}`)
		}
		b.WriteByte('}')
	}
	b.WriteString(`]}}`)
	return b.String()
}

// TestListMemoExact: over random policies, callers and lists, a list the
// VM answers from its memo is byte for byte what a VM that never saw it
// makes of it, and the memo is used.
func TestListMemoExact(t *testing.T) {
	r := rand.New(rand.NewPCG(33, 4))
	callers := []fakeRequest{
		hdr("x-mcp-principal", "alice"), hdr("x-mcp-principal", "bob"),
		hdr("x-mcp-principal", "carol", "x-mcp-roles", "admin"), hdr("x-mcp-principal", "dave", "x-mcp-roles", "ops"),
		hdr("x-mcp-principal", "erin", "x-mcp-roles", "admin,ops"),
	}
	hits, stored := 0, 0
	for range 60 {
		env := lmPolicy(r)
		warm := mustConfig(t, env)
		var lists []string
		for i := range 4 {
			lists = append(lists, lmList(r, 1, []string{"tools/list", "prompts/list"}[i%2]))
		}
		for id := range 40 {
			li := r.IntN(len(lists))
			method := []string{"tools/list", "prompts/list"}[li%2]
			params := ""
			if r.IntN(4) == 0 {
				params = `,"params":{"cursor":"p2"}`
			}
			request := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":%q%s}`, id, method, params)
			response := strings.Replace(lists[li], `"id":1,`, fmt.Sprintf(`"id":%d,`, id), 1)
			caller := callers[r.IntN(len(callers))]
			through := respond
			if r.IntN(3) == 0 {
				through = respondSSE
			}
			want := through(t, mustConfig(t, env), caller, request, response)
			got := through(t, warm, caller, request, response)
			if got != want {
				t.Fatalf("envelope %s\ncaller %v, %s\nlist %s:\nfresh %s\nwarm  %s", env, caller, request, response, want, got)
			}
		}
		hits += warm.caches.lists.hits
		for _, e := range warm.caches.lists.entries {
			if e.out != nil {
				stored++
			}
		}
	}
	t.Logf("%d lists answered from the memo, %d entries kept", hits, stored)
	if hits == 0 || stored == 0 {
		t.Fatalf("the memo was never used (%d hits, %d entries)", hits, stored)
	}
}

// TestListMemoBounds: what the memo keeps and for how long.
func TestListMemoBounds(t *testing.T) {
	cfg := mustConfig(t, listEnvelope)
	clock := int64(1e18)
	cfg.now = func() int64 { return clock }
	ann := hdr("x-mcp-principal", "ann")
	list := func(desc string) string {
		return `{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"search","description":"` + desc + `"},{"name":"admin_x"}]}}`
	}
	req := `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`
	first := respond(t, cfg, ann, req, list("finds"))
	steps := []struct {
		name     string
		advance  int64
		desc     string
		caller   fakeRequest
		wantHits int
	}{
		{"the same list again", 0, "finds", ann, 1},
		{"another caller of the same class", 0, "finds", hdr("x-mcp-principal", "bob"), 2},
		{"another class of caller", 0, "finds", hdr("x-mcp-principal", "cy", "x-mcp-roles", "admin"), 2},
		{"one byte changed", 0, "findz", ann, 2},
		// Past learnedResync a list is filtered in full again (what it
		// teaches is written to shared data again), then kept anew.
		{"after learnedResync", int64(learnedResync), "finds", ann, 2},
		{"kept anew", 0, "finds", ann, 3},
		// A list the pipeline changes (an e-mail address pseudonymised)
		// is never kept: a repeat must count and store its pseudonyms.
		{"a list the pipeline changes", 0, "mail ann@example.com", ann, 3},
		{"that list again", 0, "mail ann@example.com", ann, 3},
	}
	for _, st := range steps {
		clock += st.advance
		out := respond(t, cfg, st.caller, req, list(st.desc))
		if st.desc == "finds" && st.caller.headers["x-mcp-principal"] != "cy" && out != first {
			t.Errorf("%s: %s, first time %s", st.name, out, first)
		}
		if got := cfg.caches.lists.hits; got != st.wantHits {
			t.Errorf("%s: %d lists answered from the memo, want %d", st.name, got, st.wantHits)
		}
	}
}
