package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"html"
	"io"
	"slices"
	"strings"

	"github.com/cloudg/mcp-privacy/policy"
)

const policyMatrixUsage = `usage: mcp-privacy policy matrix FILE [--catalog FILE]... [--format text|markdown|html|json]

Who may call what: the roles of policy FILE (a policy or a plugin envelope)
as rows, the caller with no role first, and the primitives as columns: the
catalog's (captured list results, as for policy diff) and the literal names
of the policy's and server.primitives' lists.

A cell is one of:
  allow        allowed, no transform applied to results
  transformed  allowed, results go through transforms (their ids listed)
  limited      allowed, rate-limited (transforms or not)
  deny         denied, and the caller is told so (-32003)
  hidden       denied under hide_denied: the caller is told it does not exist

The HTML page stands alone (no network): colour and a legend, a cell's title
says the deciding rule and what an allowed call runs.

Exit status: 0 printed; 2 the policy or a catalog does not load, or a usage
error.
`

// matrixCell states, in the legend's order.
var matrixStates = []struct {
	name, symbol, colour, text, help string
}{
	{"allow", "✓", "#2e7d32", "#ffffff", "allowed, results unchanged"},
	{"transformed", "T", "#81c784", "#10301a", "allowed, results transformed"},
	{"limited", "R", "#f9a825", "#2b1d00", "allowed, rate-limited"},
	{"deny", "✗", "#c62828", "#ffffff", "denied, visibly (-32003)"},
	{"hidden", "–", "#9e9e9e", "#1f1f1f", "denied: does not exist for the caller"},
	{"refused", "⊘", "#4a148c", "#ffffff", "refused whatever the policy: a URI not in normal form (-32602), left out of lists"},
}

// matrixCell is one role's verdict on one primitive.
type matrixCell struct {
	State string `json:"state"`
	verdict
}

type matrixPrimitive struct {
	Kind string `json:"kind"`
	Name string `json:"name"`
}

type matrix struct {
	Policy     string            `json:"policy"`
	Roles      []string          `json:"roles"` // "" is the caller with no role
	Primitives []matrixPrimitive `json:"primitives"`
	Cells      [][]matrixCell    `json:"cells"` // [role][primitive]
}

func policyMatrix(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("policy matrix", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprint(stderr, policyMatrixUsage)
		fmt.Fprintln(stderr, "\nFlags:")
		fs.PrintDefaults()
	}
	var catalogs stringList
	fs.Var(&catalogs, "catalog", "captured list results `FILE` (repeatable)")
	format := fs.String("format", "text", "output `format`: text, markdown, html or json")
	files, err := parseInterleaved(fs, args)
	if err != nil {
		return 2
	}
	if len(files) != 1 || !slices.Contains([]string{"text", "markdown", "html", "json"}, *format) {
		fs.Usage()
		return 2
	}
	l, errs := load(files[0])
	if len(errs) > 0 {
		printErrors(stderr, files[0], errs)
		return 2
	}
	cat, ok := readCatalogs(catalogs, stderr)
	if !ok {
		return 2
	}
	m := buildMatrix(files[0], l, cat)
	switch *format {
	case "json":
		out, _ := json.MarshalIndent(m, "", "  ")
		fmt.Fprintln(stdout, string(out))
	case "markdown":
		m.writeMarkdown(stdout)
	case "html":
		m.writeHTML(stdout)
	default:
		m.writeText(stdout)
	}
	return 0
}

func buildMatrix(file string, l *loaded, cat *catalogFile) *matrix {
	j := newJudge(l, cat)
	m := &matrix{Policy: file, Roles: gridRoles(l)}
	prims := gridPrimitives(cat, l)
	for _, k := range prims {
		m.Primitives = append(m.Primitives, matrixPrimitive{k.Kind.String(), k.Name})
	}
	for _, role := range m.Roles {
		pr := rolePrincipal(l, role)
		row := make([]matrixCell, 0, len(prims))
		for _, k := range prims {
			v := j.verdictOf(&pr, k.Kind, k.Name)
			c := matrixCell{State: v.Decision, verdict: v}
			if v.Decision == "allow" {
				switch {
				case len(v.RateLimits) > 0:
					c.State = "limited"
				case len(v.Transforms) > 0 || slices.ContainsFunc(v.InputTransforms, func(id string) bool { return id != policy.DepseudonymiseID }):
					c.State = "transformed"
				}
			}
			row = append(row, c)
		}
		m.Cells = append(m.Cells, row)
	}
	return m
}

func stateOf(name string) int {
	return slices.IndexFunc(matrixStates, func(s struct{ name, symbol, colour, text, help string }) bool { return s.name == name })
}

// title is a cell's explanation: the deciding rule, its reason, and what
// an allowed call runs.
func (m *matrix) title(role string, p matrixPrimitive, c *matrixCell) string {
	s := fmt.Sprintf("%s · %s %s: %s by %s\n%s", roleText(role), p.Kind, p.Name, c.Decision, c.Rule, c.Reason)
	if c.Decision == "allow" {
		s += "\ntransforms: " + listText(c.Transforms) + "\ninput transforms: " + listText(c.InputTransforms)
		if len(c.RateLimits) > 0 {
			s += "\nrate limits: " + listText(c.RateLimits)
		}
	}
	return s
}

func (m *matrix) writeText(w io.Writer) {
	width := len("(no role)")
	for _, r := range m.Roles {
		width = max(width, len(roleText(r)))
	}
	fmt.Fprintf(w, "%-*s", width, "")
	for i := range m.Primitives {
		fmt.Fprintf(w, " %3d", i+1)
	}
	fmt.Fprintln(w)
	for i, r := range m.Roles {
		fmt.Fprintf(w, "%-*s", width, roleText(r))
		for _, c := range m.Cells[i] {
			fmt.Fprintf(w, " %3s", matrixStates[stateOf(c.State)].symbol)
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintln(w)
	for i, p := range m.Primitives {
		fmt.Fprintf(w, "%3d  %s %s\n", i+1, p.Kind, p.Name)
	}
	fmt.Fprintln(w)
	for _, s := range matrixStates {
		fmt.Fprintf(w, "%s %s: %s\n", s.symbol, s.name, s.help)
	}
}

func (m *matrix) writeMarkdown(w io.Writer) {
	fmt.Fprintf(w, "### Policy matrix: `%s`\n\n| Caller |", m.Policy)
	for _, p := range m.Primitives {
		fmt.Fprintf(w, " %s `%s` |", p.Kind, mdCell(p.Name))
	}
	fmt.Fprint(w, "\n|---|")
	fmt.Fprint(w, strings.Repeat("---|", len(m.Primitives)))
	fmt.Fprintln(w)
	for i, r := range m.Roles {
		fmt.Fprintf(w, "| %s |", mdCell(roleText(r)))
		for _, c := range m.Cells[i] {
			cell := matrixStates[stateOf(c.State)].symbol + " " + c.State
			if c.Decision == "allow" && len(c.Transforms) > 0 {
				cell += " (" + strings.Join(c.Transforms, ", ") + ")"
			}
			fmt.Fprintf(w, " %s |", mdCell(cell))
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintln(w)
	for _, s := range matrixStates {
		fmt.Fprintf(w, "%s **%s**: %s  \n", s.symbol, s.name, s.help)
	}
}

// writeHTML writes a page that stands alone: inline style, no script, no
// external resource. Column headers are written vertically and the first
// column and the header row stay in view, so 200 tools still read.
func (m *matrix) writeHTML(w io.Writer) {
	e := html.EscapeString
	fmt.Fprintf(w, `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Policy matrix: %s</title>
<style>
body { font: 14px/1.4 system-ui, -apple-system, "Segoe UI", sans-serif; margin: 16px; color: #1f1f1f; background: #ffffff; }
h1 { font-size: 18px; margin: 0 0 8px; }
.legend { display: flex; flex-wrap: wrap; gap: 16px; margin: 8px 0 12px; padding: 0; list-style: none; }
.legend li { display: flex; align-items: center; gap: 6px; }
.swatch { display: inline-block; width: 22px; height: 22px; border-radius: 3px; text-align: center; line-height: 22px; font-weight: bold; }
.wrap { overflow: auto; max-height: calc(100vh - 120px); border: 1px solid #ddd; }
table.matrix { border-collapse: separate; border-spacing: 0; }
table.matrix th, table.matrix td { border-right: 1px solid #fff; border-bottom: 1px solid #fff; }
table.matrix thead th { position: sticky; top: 0; background: #f4f4f4; z-index: 2; vertical-align: bottom; padding: 6px 2px; }
table.matrix thead th.prim { writing-mode: vertical-rl; transform: rotate(180deg); white-space: nowrap; font-weight: normal; max-height: 220px; overflow: hidden; text-overflow: ellipsis; }
table.matrix thead th.prim .kind { color: #666; }
table.matrix th.role { position: sticky; left: 0; background: #f4f4f4; z-index: 1; text-align: left; padding: 4px 10px; white-space: nowrap; }
table.matrix thead th.corner { left: 0; z-index: 3; }
td.cell { width: 26px; min-width: 26px; height: 26px; text-align: center; font-weight: bold; cursor: help; }
`, e(m.Policy))
	for _, s := range matrixStates {
		fmt.Fprintf(w, ".%s { background: %s; color: %s; }\n", s.name, s.colour, s.text)
	}
	fmt.Fprintf(w, `</style>
</head>
<body>
<h1>Policy matrix: <code>%s</code></h1>
<p>%d roles (and the caller with no role) by %d primitives. Hover a cell for the deciding rule.</p>
<ul class="legend">
`, e(m.Policy), len(m.Roles)-1, len(m.Primitives))
	for _, s := range matrixStates {
		fmt.Fprintf(w, "<li><span class=\"swatch %s\">%s</span> <b>%s</b>: %s</li>\n", s.name, s.symbol, s.name, e(s.help))
	}
	fmt.Fprint(w, "</ul>\n<div class=\"wrap\">\n<table class=\"matrix\">\n<thead><tr><th class=\"role corner\">caller</th>")
	for _, p := range m.Primitives {
		fmt.Fprintf(w, "<th class=\"prim\" scope=\"col\" title=\"%s %s\"><span class=\"kind\">%s</span> %s</th>", e(p.Kind), e(p.Name), e(p.Kind), e(p.Name))
	}
	fmt.Fprint(w, "</tr></thead>\n<tbody>\n")
	for i, r := range m.Roles {
		fmt.Fprintf(w, "<tr class=\"role-row\"><th class=\"role\" scope=\"row\">%s</th>", e(roleText(r)))
		for k, c := range m.Cells[i] {
			fmt.Fprintf(w, "<td class=\"cell %s\" title=\"%s\">%s</td>", c.State, e(m.title(r, m.Primitives[k], &c)), matrixStates[stateOf(c.State)].symbol)
		}
		fmt.Fprint(w, "</tr>\n")
	}
	fmt.Fprint(w, "</tbody>\n</table>\n</div>\n</body>\n</html>\n")
}
