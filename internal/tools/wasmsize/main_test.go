package main

import (
	"testing"
)

func TestPackageNamer(t *testing.T) {
	pkgOf := packageNamer([]string{"runtime", "encoding/json", "go.yaml.in/yaml/v3",
		"github.com/cloudg/mcp-privacy/plugin/mcp", "github.com/cloudg/mcp-privacy/plugin"})
	for _, c := range []struct{ name, want string }{
		{"runtime.gcStart", "runtime"},
		{"runtime.gc_x", "runtime"},
		{"encoding_json.__decodeState_.literalStore", "encoding/json"},
		{"go.yaml.in_yaml_v3.yaml_parser_scan_flow_scalar", "go.yaml.in/yaml/v3"},
		{"github.com_cloudg_mcp_privacy_plugin_mcp.__exchange_.processMessage", "github.com/cloudg/mcp-privacy/plugin/mcp"},
		{"github.com_cloudg_mcp_privacy_plugin.init", "github.com/cloudg/mcp-privacy/plugin"},
		{"main.__httpContext_.OnHttpRequestBody", "github.com/cloudg/mcp-privacy/plugin"},
		{"type_.eq.runtime.mspan", "type: (generated equality and hash functions)"},
		{"other_pkg.F", "other_pkg (not a listed package)"},
		{"func[12]", "func[12]"},
	} {
		if got := pkgOf(c.name); got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
}

// TestParse reads a module assembled here: two imported functions (so
// defined ones are numbered from 2), two defined ones, and a name section
// naming one of them.
func TestParse(t *testing.T) {
	section := func(id byte, body ...byte) []byte { return append([]byte{id, byte(len(body))}, body...) }
	str := func(s string) []byte { return append([]byte{byte(len(s))}, s...) }
	var mod []byte
	mod = append(mod, "\x00asm\x01\x00\x00\x00"...)
	mod = append(mod, section(1, 1, 0x60, 0, 0)...) // one type: () -> ()
	var imports []byte
	imports = append(imports, 2)
	for _, name := range []string{"f", "g"} {
		imports = append(imports, str("env")...)
		imports = append(imports, str(name)...)
		imports = append(imports, 0, 0) // function of type 0
	}
	mod = append(mod, section(2, imports...)...)
	mod = append(mod, section(3, 2, 0, 0)...)                          // two functions of type 0
	mod = append(mod, section(10, 2, 2, 0, 0x0b, 4, 0, 1, 1, 0x0b)...) // bodies of 2 and 4 bytes
	names := append(str("name"), 1, 7, 1, 3)                           // function names: one, index 3
	names = append(names, str("main.f")...)
	mod = append(mod, section(0, names...)...)

	m, err := parse(mod)
	if err != nil {
		t.Fatal(err)
	}
	if len(m.funcs) != 2 || m.funcs[0] != (function{"func[2]", 2}) || m.funcs[1] != (function{"main.f", 4}) {
		t.Errorf("functions: %+v", m.funcs)
	}
	total := 8
	for _, s := range m.sections {
		total += s.size
	}
	if total != len(mod) || len(m.sections) != 5 || m.sections[4].name != "custom name" {
		t.Errorf("sections %+v add up to %d of %d bytes", m.sections, total, len(mod))
	}
	if _, err := parse(mod[:len(mod)-3]); err == nil {
		t.Error("a truncated module parsed")
	}
}
