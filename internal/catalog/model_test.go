package catalog

import (
	"reflect"
	"testing"

	"github.com/cloudg/mcp-privacy/internal/jsondoc"
	"github.com/cloudg/mcp-privacy/policy"
)

// Resolve names the primitive manual 4 says a call names, and knows what
// a list or the server block made known.
func TestModelResolve(t *testing.T) {
	env, errs := policy.ParseEnvelope([]byte(`{
  "policy": "standard",
  "server": {"primitives": [
    {"match": {"names": ["conf://{key}"], "kinds": ["resource_template"]}, "category": "config"},
    {"match": {"names": ["conf://static"], "kinds": ["resource"]}},
    {"match": {"names": ["tool_*"], "kinds": ["tool"]}, "tags": ["configured"]}
  ]}
}`), policy.Options{})
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	cat := newListed(&env.Server)
	cat.list(policy.KindTool, "search", policy.Metadata{Category: "crm"})
	cat.list(policy.KindResourceTemplate, "users://{id}", policy.Metadata{Category: "people"})
	cat.list(policy.KindResourceTemplate, "users://{id}/card", policy.Metadata{})
	cat.list(policy.KindResource, "users://me", policy.Metadata{Category: "self"})
	for _, c := range []struct {
		kind      policy.Kind
		name      string
		wantKind  policy.Kind
		wantName  string
		wantURI   string
		wantKnown bool
		wantCateg string
	}{
		{policy.KindTool, "search", policy.KindTool, "search", "", true, "crm"},
		{policy.KindTool, "unlisted", policy.KindTool, "unlisted", "", false, ""},
		{policy.KindTool, "tool_x", policy.KindTool, "tool_x", "", true, ""}, // a server.primitives glob makes it known
		// A concrete URI is the template it is an instance of, strictly
		// first: users://7/card matches users://{id} only loosely.
		{policy.KindResource, "users://7", policy.KindResourceTemplate, "users://{id}", "users://7", true, "people"},
		{policy.KindResource, "users://7/card", policy.KindResourceTemplate, "users://{id}/card", "users://7/card", true, ""},
		// A listed static resource stays itself, though a template matches it.
		{policy.KindResource, "users://me", policy.KindResource, "users://me", "", true, "self"},
		// A template's own text (a completion's ref) is that template.
		{policy.KindResource, "users://{id}", policy.KindResourceTemplate, "users://{id}", "", true, "people"},
		// The server block's literal template and static resource.
		{policy.KindResource, "conf://a", policy.KindResourceTemplate, "conf://{key}", "conf://a", true, "config"},
		{policy.KindResource, "conf://static", policy.KindResource, "conf://static", "", true, ""},
		{policy.KindResource, "other://x", policy.KindResource, "other://x", "", false, ""},
	} {
		x, known := cat.Resolve(c.kind, c.name)
		if x.Kind != c.wantKind || x.Name != c.wantName || x.URI != c.wantURI || known != c.wantKnown || x.Metadata.Category != c.wantCateg {
			t.Errorf("%s %q: %s %q uri %q known %v category %q; want %s %q %q %v %q", c.kind, c.name,
				x.Kind, x.Name, x.URI, known, x.Metadata.Category, c.wantKind, c.wantName, c.wantURI, c.wantKnown, c.wantCateg)
		}
		if c.kind == policy.KindTool && c.name == "tool_x" && !reflect.DeepEqual(x.Metadata.Tags, []string{"configured"}) {
			t.Errorf("tool_x: configured tags lost: %v", x.Metadata.Tags)
		}
	}
}

// ListedMetadata takes the five keys of manual 4 and ignores values of
// the wrong type, so odd metadata cannot break a list.
func TestListedMetadata(t *testing.T) {
	for _, c := range []struct {
		in    string
		found bool
		want  policy.Metadata
	}{
		{`{"category":"crm","tags":["a",1,"b"],"sensitivity":"internal","capabilities":["exec","fly"]}`, true,
			policy.Metadata{Category: "crm", Tags: []string{"a", "b"}, Sensitivity: policy.Internal, Capabilities: policy.CapabilitySet(0).With(policy.Exec)}},
		{`{"category":7,"tags":"x","sensitivity":"top","capabilities":{}}`, true, policy.Metadata{}},
		{`"crm"`, false, policy.Metadata{}},
	} {
		doc, err := jsondoc.Parse([]byte(c.in))
		if err != nil {
			t.Fatal(err)
		}
		m, found := ListedMetadata(doc, jsondoc.Root, nil)
		if found != c.found || !reflect.DeepEqual(m, c.want) {
			t.Errorf("%s: %+v %v; want %+v %v", c.in, m, found, c.want, c.found)
		}
	}
}
