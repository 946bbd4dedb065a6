package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"

	"github.com/cloudg/mcp-privacy/policy"
)

const policyDiffUsage = `usage: mcp-privacy policy diff OLD NEW [--catalog FILE]... [--format text|markdown|json]

What changing policy OLD into NEW grants and takes away. OLD and NEW are
policies or plugin envelopes. Each is judged for every role named in
either (a caller with that one role) and the caller with no role, against
every primitive: those of the catalog (captured tools/list, resources/list,
resources/templates/list and prompts/list results, JSON-RPC responses or
bare results), the literal names of the policies' and server.primitives'
lists, and the templates among them.

Reported: decisions that change (allow, deny, hidden), the output and input
pipelines and the rate limits of calls allowed by both, and per role the
capabilities it may not use and its sensitivity ceiling (for primitives
that no primitive-specific rule matches).

Exit status: 0 nothing changes, 1 something does, 2 a policy does not load
or a usage error.
`

func policyDiff(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("policy diff", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprint(stderr, policyDiffUsage)
		fmt.Fprintln(stderr, "\nFlags:")
		fs.PrintDefaults()
	}
	var catalogs stringList
	fs.Var(&catalogs, "catalog", "captured list results `FILE` (repeatable)")
	format := fs.String("format", "text", "output `format`: text, markdown or json")
	files, err := parseInterleaved(fs, args)
	if err != nil {
		return 2
	}
	if len(files) != 2 || !slices.Contains([]string{"text", "markdown", "json"}, *format) {
		fs.Usage()
		return 2
	}
	var ls [2]*loaded
	for i, f := range files {
		l, errs := load(f)
		if len(errs) > 0 {
			printErrors(stderr, f, errs)
			return 2
		}
		ls[i] = l
	}
	cat, ok := readCatalogs(catalogs, stderr)
	if !ok {
		return 2
	}
	changes := diffPolicies(ls[0], ls[1], cat)
	switch *format {
	case "json":
		out, _ := json.MarshalIndent(struct {
			Old     string       `json:"old"`
			New     string       `json:"new"`
			Changes []diffChange `json:"changes"`
		}{files[0], files[1], changes}, "", "  ")
		fmt.Fprintln(stdout, string(out))
	case "markdown":
		writeDiffMarkdown(stdout, files[0], files[1], changes)
	default:
		writeDiffText(stdout, changes)
	}
	if len(changes) > 0 {
		return 1
	}
	return 0
}

// stringList is a repeatable string flag.
type stringList []string

func (s *stringList) String() string     { return strings.Join(*s, ",") }
func (s *stringList) Set(v string) error { *s = append(*s, v); return nil }

// readCatalogs reads and joins the --catalog files (nil when none).
func readCatalogs(files []string, stderr io.Writer) (*catalogFile, bool) {
	var cat *catalogFile
	for _, f := range files {
		c, err := readCatalogFile(f)
		if err != nil {
			fmt.Fprintf(stderr, "%s: %v\n", f, err)
			return nil, false
		}
		if cat == nil {
			cat = c
		} else {
			cat.Entries = append(cat.Entries, c.Entries...)
		}
	}
	return cat, true
}

// gridRoles are the roles named in the policies, in the order they first
// appear, after "" (the caller with no role).
func gridRoles(ls ...*loaded) []string {
	roles := []string{""}
	for _, l := range ls {
		for _, r := range l.Policy.Rules {
			names := r.Match.Roles
			if r.Role != "" {
				names = append([]string{r.Role}, names...)
			}
			for _, name := range names {
				if name != "*" && !slices.Contains(roles, name) {
					roles = append(roles, name)
				}
			}
		}
	}
	return roles
}

// gridPrimitives are the primitives the policies and the catalog name:
// the catalog's in its order, then the literal names of the policies'
// access lists and server.primitives, by kind and name. A resource name
// with an expression is a template.
func gridPrimitives(cat *catalogFile, ls ...*loaded) []kindName {
	var out []kindName
	seen := map[kindName]bool{}
	add := func(k kindName) {
		if !seen[k] {
			seen[k] = true
			out = append(out, k)
		}
	}
	if cat != nil {
		for _, e := range cat.Entries {
			add(kindName{e.Kind, e.Name})
		}
	}
	var more []kindName
	literal := func(g *policy.GlobList, kinds ...policy.Kind) {
		if g == nil {
			return
		}
		for _, name := range g.Patterns() {
			if name == "" || strings.ContainsAny(name, "*?[") || strings.HasPrefix(name, "!") {
				continue
			}
			for _, k := range kinds {
				if k == policy.KindResource && strings.Contains(name, "{") {
					k = policy.KindResourceTemplate
				}
				more = append(more, kindName{k, name})
			}
		}
	}
	access := func(a *policy.AccessRules) {
		literal(a.AllowTools, policy.KindTool)
		literal(a.DenyTools, policy.KindTool)
		literal(a.AllowResources, policy.KindResource)
		literal(a.DenyResources, policy.KindResource)
		literal(a.AllowPrompts, policy.KindPrompt)
		literal(a.DenyPrompts, policy.KindPrompt)
	}
	for _, l := range ls {
		access(&l.Policy.Access)
		for _, r := range l.Policy.Rules {
			access(&r.Access)
		}
		if l.Envelope != nil {
			for _, p := range l.Envelope.Server.Primitives {
				for _, k := range []policy.Kind{policy.KindTool, policy.KindResource, policy.KindResourceTemplate, policy.KindPrompt} {
					if p.Kinds.Has(k) {
						literal(p.Names, k)
					}
				}
			}
		}
	}
	sort.SliceStable(more, func(i, j int) bool {
		if more[i].Kind != more[j].Kind {
			return more[i].Kind < more[j].Kind
		}
		return more[i].Name < more[j].Name
	})
	for _, k := range more {
		add(k)
	}
	return out
}

// rolePrincipal is the caller with one role (none for ""), named as a
// caller without identity is.
func rolePrincipal(l *loaded, role string) policy.Principal {
	pr := l.principal("", false, "")
	if role != "" {
		pr.Roles = []string{role}
	}
	return pr
}

// roleLimits are what a role may not go beyond: the capabilities it may
// not use (the policy's deny set less what rules for the role grant, plus
// what they deny) and the sensitivity ceiling of the rules with only role
// and principal conditions (else the policy's; "" for none).
type roleLimits struct {
	DeniedCapabilities []string `json:"denied_capabilities"`
	MaxSensitivity     string   `json:"max_sensitivity"`
}

func limitsOf(p *policy.Policy, pr *policy.Principal) roleLimits {
	denied := p.Access.DenyCapabilities
	var granted, ruleDenied policy.CapabilitySet
	for _, r := range p.RulesFor(pr) {
		granted |= r.Access.AllowCapabilities
		ruleDenied |= r.Access.DenyCapabilities
	}
	ceiling := p.Access.MaxSensitivity
	for _, r := range p.MatchPrincipal(pr) {
		if r.Access.MaxSensitivity != policy.SensitivityUnset {
			ceiling = r.Access.MaxSensitivity
		}
	}
	lim := roleLimits{DeniedCapabilities: (denied&^granted | ruleDenied).Names()}
	if lim.DeniedCapabilities == nil {
		lim.DeniedCapabilities = []string{}
	}
	if ceiling != policy.SensitivityUnset {
		lim.MaxSensitivity = ceiling.String()
	}
	return lim
}

// diffChange is one thing a policy change grants or takes away. Kind and
// Name are empty for a role's limits. The field names are the JSON output's.
type diffChange struct {
	Role   string `json:"role"` // "" for the caller with no role
	Kind   string `json:"kind,omitempty"`
	Name   string `json:"name,omitempty"`
	Field  string `json:"field"` // decision, transforms, input_transforms, rate_limits, denied_capabilities, max_sensitivity
	Before string `json:"before"`
	After  string `json:"after"`
	// Rules are the deciding rules of a decision's change, before and after.
	BeforeRule string `json:"before_rule,omitempty"`
	AfterRule  string `json:"after_rule,omitempty"`
}

func diffPolicies(old, new *loaded, cat *catalogFile) []diffChange {
	jo, jn := newJudge(old, cat), newJudge(new, cat)
	prims := gridPrimitives(cat, old, new)
	var changes []diffChange
	for _, role := range gridRoles(old, new) {
		po, pn := rolePrincipal(old, role), rolePrincipal(new, role)
		for _, k := range prims {
			vo, vn := jo.verdictOf(&po, k.Kind, k.Name), jn.verdictOf(&pn, k.Kind, k.Name)
			c := diffChange{Role: role, Kind: k.Kind.String(), Name: k.Name}
			if vo.Decision != vn.Decision {
				c.Field, c.Before, c.After, c.BeforeRule, c.AfterRule = "decision", vo.Decision, vn.Decision, vo.Rule, vn.Rule
				changes = append(changes, c)
				continue
			}
			if vo.Decision != "allow" {
				continue
			}
			for _, f := range []struct {
				field    string
				old, new []string
			}{
				{"transforms", vo.Transforms, vn.Transforms},
				{"input_transforms", vo.InputTransforms, vn.InputTransforms},
				{"rate_limits", vo.RateLimits, vn.RateLimits},
			} {
				if !slices.Equal(f.old, f.new) {
					c.Field, c.Before, c.After = f.field, listText(f.old), listText(f.new)
					changes = append(changes, c)
				}
			}
		}
		lo, ln := limitsOf(old.Policy, &po), limitsOf(new.Policy, &pn)
		if !slices.Equal(lo.DeniedCapabilities, ln.DeniedCapabilities) {
			changes = append(changes, diffChange{Role: role, Field: "denied_capabilities",
				Before: listText(lo.DeniedCapabilities), After: listText(ln.DeniedCapabilities)})
		}
		if lo.MaxSensitivity != ln.MaxSensitivity {
			changes = append(changes, diffChange{Role: role, Field: "max_sensitivity",
				Before: orNone(lo.MaxSensitivity), After: orNone(ln.MaxSensitivity)})
		}
	}
	return changes
}

func listText(l []string) string {
	if len(l) == 0 {
		return "none"
	}
	return strings.Join(l, "; ")
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

func roleText(role string) string {
	if role == "" {
		return "(no role)"
	}
	return "role " + role
}

// what is a change's subject: the primitive, or the role's limit.
func (c *diffChange) what() string {
	if c.Kind == "" {
		return strings.ReplaceAll(c.Field, "_", " ")
	}
	if c.Field == "decision" {
		return c.Kind + " " + c.Name
	}
	return c.Kind + " " + c.Name + " " + strings.ReplaceAll(c.Field, "_", " ")
}

// grants says whether a change gives the role more.
func (c *diffChange) grants() string {
	if c.Field != "decision" {
		return ""
	}
	rank := map[string]int{"refused": 0, "hidden": 0, "deny": 1, "allow": 2}
	if rank[c.After] > rank[c.Before] {
		return "grants"
	}
	return "takes away"
}

func (c *diffChange) change() string {
	if c.Field == "decision" {
		return fmt.Sprintf("%s (%s) -> %s (%s)", c.Before, c.BeforeRule, c.After, c.AfterRule)
	}
	return c.Before + " -> " + c.After
}

func writeDiffText(w io.Writer, changes []diffChange) {
	role := "\x00"
	for _, c := range changes {
		if c.Role != role {
			role = c.Role
			fmt.Fprintf(w, "%s:\n", roleText(role))
		}
		g := c.grants()
		if g != "" {
			g = "  [" + g + "]"
		}
		fmt.Fprintf(w, "  %s: %s%s\n", c.what(), c.change(), g)
	}
	switch len(changes) {
	case 0:
		fmt.Fprintln(w, "no change")
	case 1:
		fmt.Fprintln(w, "1 change")
	default:
		fmt.Fprintf(w, "%d changes\n", len(changes))
	}
}

// mdCell escapes a table cell of GitHub-flavoured Markdown.
func mdCell(s string) string {
	return strings.NewReplacer("|", `\|`, "\n", " ", "<", "&lt;", ">", "&gt;").Replace(s)
}

func writeDiffMarkdown(w io.Writer, oldFile, newFile string, changes []diffChange) {
	fmt.Fprintf(w, "### Policy change: `%s` → `%s`\n\n", oldFile, newFile)
	if len(changes) == 0 {
		fmt.Fprintln(w, "No change for any role or primitive.")
		return
	}
	fmt.Fprintln(w, "| Caller | Primitive | Change | Before | After |")
	fmt.Fprintln(w, "|---|---|---|---|---|")
	for _, c := range changes {
		subject, kind := "", c.Field
		if c.Kind != "" {
			subject = fmt.Sprintf("%s `%s`", c.Kind, c.Name)
		}
		before, after := c.Before, c.After
		if c.Field == "decision" {
			kind = "**" + c.grants() + "**"
			before, after = fmt.Sprintf("%s (%s)", c.Before, c.BeforeRule), fmt.Sprintf("%s (%s)", c.After, c.AfterRule)
		} else {
			kind = strings.ReplaceAll(kind, "_", " ")
		}
		fmt.Fprintf(w, "| %s | %s | %s | %s | %s |\n", mdCell(roleText(c.Role)), mdCell(subject), kind, mdCell(before), mdCell(after))
	}
	s := "s"
	if len(changes) == 1 {
		s = ""
	}
	fmt.Fprintf(w, "\n%d change%s.\n", len(changes), s)
}
