package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

func demoCatalog(t *testing.T) string {
	return filepath.Join(filepath.Dir(demoPolicy(t)), "demo_catalog.json")
}

// TestPolicyMatrix: the demo's grid, in every format, says what explain
// says of each call.
func TestPolicyMatrix(t *testing.T) {
	code, out, errOut := runCLI("policy", "matrix", demoPolicy(t), "--catalog", demoCatalog(t), "--format", "json")
	var m matrix
	if err := json.Unmarshal([]byte(out), &m); code != 0 || err != nil {
		t.Fatalf("exit %d, %v, stderr %q:\n%s", code, err, errOut, out)
	}
	if strings.Join(m.Roles, ",") != ",support,admin" || len(m.Primitives) != 7 || len(m.Cells) != 3 {
		t.Fatalf("roles %q, %d primitives, %d rows", m.Roles, len(m.Primitives), len(m.Cells))
	}
	roles := map[string][]string{"": nil, "support": {"support"}, "admin": {"admin"}}
	flags := map[string]string{"tool": "--tool", "resource": "--resource", "resource_template": "--template", "prompt": "--prompt"}
	for i, role := range m.Roles {
		for k, p := range m.Primitives {
			c := m.Cells[i][k]
			args := []string{"explain", "--policy", demoPolicy(t), "--json", flags[p.Kind], p.Name}
			if roles[role] != nil {
				args = append(args, "--roles", strings.Join(roles[role], ","))
			}
			_, eo, _ := runCLI(args...)
			var e explanation
			if err := json.Unmarshal([]byte(eo), &e); err != nil {
				t.Fatal(err)
			}
			want := e.Decision
			if e.Hidden {
				want = "hidden"
			}
			if c.Decision != want || c.Rule != e.Rule {
				t.Errorf("%s %s %s: matrix %s by %s, explain %s by %s", role, p.Kind, p.Name, c.Decision, c.Rule, want, e.Rule)
			}
		}
	}
	if c := m.Cells[1][2]; m.Primitives[2].Name != "delete_customer" || c.State != "hidden" {
		t.Errorf("support delete_customer: %+v", c)
	}
	if c := m.Cells[2][2]; c.State != "transformed" || strings.Join(c.Transforms, ",") != "secrets,pii" {
		t.Errorf("admin delete_customer: %+v", c)
	}

	_, text, _ := runCLI("policy", "matrix", demoPolicy(t), "--catalog", demoCatalog(t))
	if !strings.Contains(text, "role support   T   T   –   T   T   T   T\n") || !strings.Contains(text, "  3  tool delete_customer\n") {
		t.Errorf("text:\n%s", text)
	}
	_, md, _ := runCLI("policy", "matrix", "--format", "markdown", demoPolicy(t))
	if !strings.Contains(md, "| role support | – hidden | T transformed (secrets, pii) |") || !strings.Contains(md, "resource_template `customers://{id}/profile`") {
		t.Errorf("markdown:\n%s", md)
	}
	_, page, _ := runCLI("policy", "matrix", "--format", "html", demoPolicy(t), "--catalog", demoCatalog(t))
	// Stands alone: nothing fetched.
	for _, ref := range []string{"src=", "href=", "url(", "@import", "<script", "<link"} {
		if strings.Contains(page, ref) {
			t.Errorf("the page refers to something outside (%s)", ref)
		}
	}
	if n := strings.Count(page, "<td class=\"cell "); n != 21 || strings.Count(page, "<td class=\"cell hidden\" title=\"role support · tool delete_customer: hidden by role:support\n") != 1 {
		t.Errorf("%d cells, or no title naming the rule:\n%s", n, page)
	}
	for _, args := range [][]string{{}, {demoPolicy(t), demoPolicy(t)}, {demoPolicy(t), "--format", "svg"}, {"nowhere.yaml"}} {
		if code, _, _ := runCLI(append([]string{"policy", "matrix"}, args...)...); code != 2 {
			t.Errorf("%v: exit %d, want 2", args, code)
		}
	}
}

// wideCatalog is a tools/list of n tools, every fifth one restricted
// (hidden from callers under the standard ceiling).
func wideCatalog(t *testing.T, dir string, n int) string {
	var tools []string
	for i := range n {
		meta := ""
		if i%5 == 0 {
			meta = `, "_meta": {"io.cloudg/privacy": {"sensitivity": "restricted"}}`
		}
		tools = append(tools, fmt.Sprintf(`{"name": "tool_%03d", "inputSchema": {"type": "object"}%s}`, i, meta))
	}
	f := filepath.Join(dir, "tools.json")
	if err := os.WriteFile(f, []byte(`{"jsonrpc": "2.0", "id": 1, "result": {"tools": [`+strings.Join(tools, ",\n")+`]}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	return f
}

// TestPolicyMatrixInChromium opens the HTML page of a 200-tool matrix in
// headless Chromium: the DOM it builds holds the grid (a row per role, a
// column per primitive, a title per cell), and the screenshot decodes and
// shows the cells' colours over more than the legend's swatches.
func TestPolicyMatrixInChromium(t *testing.T) {
	browser := ""
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			browser = p
			break
		}
	}
	if browser == "" {
		t.Skip("no headless browser: install Chromium (Debian: apt-get install chromium; .ci/run does) to check the matrix page renders")
	}
	dir := t.TempDir()
	policyFile := filepath.Join(dir, "wide.yaml")
	if err := os.WriteFile(policyFile, []byte(`name: wide
extends: standard
hide_denied: true
roles:
  viewer: {}
  limited: {rate_limits: [{rate: 5, per: minute}]}
  auditor: {max_sensitivity: restricted}
  blocked: {deny_tools: ["tool_1*"]}
`), 0o644); err != nil {
		t.Fatal(err)
	}
	code, page, errOut := runCLI("policy", "matrix", "--format", "html", policyFile, "--catalog", wideCatalog(t, dir, 200))
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	pageFile := filepath.Join(dir, "matrix.html")
	if err := os.WriteFile(pageFile, []byte(page), 0o644); err != nil {
		t.Fatal(err)
	}
	shot := filepath.Join(dir, "matrix.png")
	chromium := func(extra ...string) []byte {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		args := append([]string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
			"--disable-component-update", "--disable-sync", "--no-first-run", "--user-data-dir=" + t.TempDir(),
			"--window-size=1400,900"}, extra...)
		cmd := exec.CommandContext(ctx, browser, append(args, "file://"+pageFile)...)
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); err != nil {
			t.Fatalf("%s %v: %v\n%s", browser, extra, err, stderr.Bytes())
		}
		return stdout.Bytes()
	}

	dom := string(chromium("--dump-dom"))
	rows := regexp.MustCompile(`<tr class="role-row">`).FindAllStringIndex(dom, -1)
	if len(rows) != 5 { // no role, viewer, limited, auditor, blocked
		t.Fatalf("the DOM has %d role rows, want 5:\n%.2000s", len(rows), dom)
	}
	if n := strings.Count(dom, `<th class="prim" scope="col"`); n != 200 {
		t.Errorf("the DOM has %d primitive columns, want 200", n)
	}
	cell := regexp.MustCompile(`<td class="cell (allow|transformed|limited|deny|hidden)" title="[^"]+ by [^"]+">`)
	for i, start := range rows {
		end := len(dom)
		if i+1 < len(rows) {
			end = rows[i+1][0]
		}
		if n := len(cell.FindAllString(dom[start[0]:end], -1)); n != 200 {
			t.Errorf("row %d has %d cells with a title, want 200", i, n)
		}
	}

	chromium("--screenshot=" + shot)
	f, err := os.Open(shot)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("the screenshot is no PNG: %v", err)
	}
	b := img.Bounds()
	if b.Dx() < 1000 || b.Dy() < 600 {
		t.Fatalf("screenshot %v", b)
	}
	counts := map[[3]uint8]int{}
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, _ := img.At(x, y).RGBA()
			counts[[3]uint8{uint8(r >> 8), uint8(g >> 8), uint8(bl >> 8)}]++
		}
	}
	// Every state but allow (every allowed call is transformed under the
	// standard profile; deny has no visible denial here; refused no URI
	// out of normal form) fills grid cells: far more pixels than its
	// legend swatch (22x22).
	for _, s := range matrixStates {
		if s.name == "allow" || s.name == "deny" || s.name == "refused" {
			continue
		}
		want := hexRGB(t, s.colour)
		n := 0
		for c, k := range counts {
			if near(c, want) {
				n += k
			}
		}
		if n < 10*22*22 {
			t.Errorf("%s (%s): %d pixels in the screenshot; the grid's cells did not render", s.name, s.colour, n)
		}
	}
	if len(counts) < len(matrixStates) {
		t.Errorf("%d distinct colours: a blank page", len(counts))
	}
}

func hexRGB(t *testing.T, s string) [3]uint8 {
	v, err := strconv.ParseUint(strings.TrimPrefix(s, "#"), 16, 32)
	if err != nil {
		t.Fatal(err)
	}
	return [3]uint8{uint8(v >> 16), uint8(v >> 8), uint8(v)}
}

func near(a, b [3]uint8) bool {
	for i := range a {
		if d := int(a[i]) - int(b[i]); d > 3 || d < -3 {
			return false
		}
	}
	return true
}
