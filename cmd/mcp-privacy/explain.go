package main

import (
	"encoding/json"
	"flag"
	"fmt"
	judging "github.com/cloudg/mcp-privacy/internal/catalog"
	"io"
	"strings"

	"github.com/cloudg/mcp-privacy/policy"
)

// explanation is the --json output of explain; the field names are a
// stable interface for operators' scripts.
type explanation struct {
	// Config names the part of a Higress configuration that judged
	// (global or _rules_[i]); absent for other configurations.
	Config          string           `json:"config,omitempty"`
	Decision        string           `json:"decision"`
	Rule            string           `json:"rule"`
	Reason          string           `json:"reason"`
	Hidden          bool             `json:"hidden"`
	Error           *policy.RPCError `json:"error"`
	Transforms      []string         `json:"transforms"`
	InputTransforms []string         `json:"input_transforms"`
	RateLimits      []string         `json:"rate_limits"`
	// Detection names the detection blocks (manual 12.9.6) whose allow
	// lists and dictionaries the call's pipelines use: the policy's, then
	// the matched rules'. Absent when there are none.
	Detection []string `json:"detection,omitempty"`
}

func splitList(s string) []string {
	var out []string
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}

func explain(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("explain", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var (
		file                                = fs.String("policy", "", "policy or plugin envelope `FILE` (YAML or JSON)")
		principal                           = fs.String("principal", "", "principal `ID` (default: the envelope's identity.anonymous_id)")
		roles                               = fs.String("roles", "", "comma-separated `roles` of the principal")
		tool                                = fs.String("tool", "", "judge a call to tool `NAME`")
		resource                            = fs.String("resource", "", "judge a read of static resource `URI`")
		template                            = fs.String("template", "", "judge a read through resource template `URI_TEMPLATE`")
		prompt                              = fs.String("prompt", "", "judge prompt `NAME`")
		category                            = fs.String("category", "", "the primitive's `category`")
		tags                                = fs.String("tags", "", "the primitive's comma-separated `tags`")
		sensitivity                         = fs.String("sensitivity", "", "the primitive's `sensitivity` (public, internal, confidential, restricted)")
		capabilities                        = fs.String("capabilities", "", "the primitive's comma-separated `capabilities`")
		asJSON                              = fs.Bool("json", false, "print one JSON object")
		route                               = fs.String("route", "", "Higress: the request's route `NAME` (route_name)")
		domain                              = fs.String("domain", "", "Higress: the request's `HOST` (:authority)")
		service                             = fs.String("service", "", "Higress: the request's service, `FQDN[:PORT]` or a cluster name outbound|PORT||FQDN")
		set          map[string]bool        = map[string]bool{}
		kinds        map[string]policy.Kind = map[string]policy.Kind{
			"tool": policy.KindTool, "resource": policy.KindResource,
			"template": policy.KindResourceTemplate, "prompt": policy.KindPrompt,
		}
	)
	if err := fs.Parse(args); err != nil {
		return 2
	}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	if *file == "" || fs.NArg() > 0 {
		fmt.Fprintln(stderr, "usage: mcp-privacy explain --policy FILE [--principal ID] [--roles a,b] (--tool NAME | --resource URI | --template URI_TEMPLATE | --prompt NAME) [--category C] [--tags a,b] [--sensitivity S] [--capabilities a,b] [--route NAME] [--domain HOST] [--service NAME] [--json]")
		return 2
	}
	var x policy.Primitive
	named := 0
	for flagName, value := range map[string]string{"tool": *tool, "resource": *resource, "template": *template, "prompt": *prompt} {
		if set[flagName] {
			named++
			x.Kind, x.Name = kinds[flagName], value
		}
	}
	if named != 1 {
		fmt.Fprintln(stderr, "explain: give exactly one of --tool, --resource, --template, --prompt")
		return 2
	}

	l, errs := load(*file)
	if len(errs) > 0 {
		printErrors(stderr, *file, errs)
		return 1
	}
	part, applies := l.selectRule(*route, *domain, *service)
	if !applies {
		// Higress runs the plugin only where a rule matches when there is
		// no global configuration.
		if *asJSON {
			fmt.Fprintln(stdout, `{"config": "", "decision": "unjudged", "reason": "no rule matches and there is no global configuration: Higress passes the request by"}`)
		} else {
			fmt.Fprintln(stdout, "config:           none (no rule matches and there is no global configuration)\ndecision:         unjudged (Higress passes the request by)")
		}
		return 0
	}
	p := l.Policy

	pr := l.principal(*principal, set["principal"], *roles)

	// Metadata: defaults, then the envelope's server.primitives, then flags.
	known := set["category"] || set["tags"] || set["sensitivity"] || set["capabilities"]
	if l.Envelope != nil {
		x.Metadata = l.Envelope.Server.Metadata(x.Kind, x.Name, x.Metadata)
		known = known || l.Envelope.Server.Known(x.Kind, x.Name)
	}
	if set["category"] {
		x.Category = *category
	}
	if set["tags"] {
		x.Tags = splitList(*tags)
	}
	if set["sensitivity"] {
		s, ok := policy.ParseSensitivity(*sensitivity)
		if !ok {
			fmt.Fprintf(stderr, "explain: unknown sensitivity %q (want public, internal, confidential, restricted)\n", *sensitivity)
			return 2
		}
		x.Sensitivity = s
	}
	if set["capabilities"] {
		x.Capabilities = 0
		for _, c := range splitList(*capabilities) {
			cp, ok := policy.ParseCapability(c)
			if !ok {
				fmt.Fprintf(stderr, "explain: unknown capability %q (want read_state, write_state, read_fs, write_fs, cloud_access, exec, reveal)\n", c)
				return 2
			}
			x.Capabilities = x.Capabilities.With(cp)
		}
	}

	d := l.decide(&pr, &x, known)
	out := explanation{
		Config: part, Decision: "deny", Rule: d.Rule, Reason: d.Reason(), Hidden: d.Hidden, Error: d.Error(),
		Transforms: []string{}, InputTransforms: []string{}, RateLimits: []string{},
	}
	if d.Allowed {
		// Denied calls run no pipeline and take no tokens (manual 9).
		out.Decision = "allow"
		out.Transforms = policy.IDs(p.OutputPipeline(d.Matched, &x.Metadata))
		out.InputTransforms = policy.IDs(p.InputPipeline(d.Matched, &x.Metadata))
		for _, b := range p.Buckets(rateCallOf(&x, pr.ID, func(name string) bool {
			return l.Envelope != nil && l.Envelope.Server.Known(x.Kind, name)
		}), d.Matched) {
			out.RateLimits = append(out.RateLimits, b.String())
		}
		if p.Detection != nil {
			out.Detection = append(out.Detection, p.Detection.Path)
		}
		for _, r := range d.Matched {
			if r.Detection != nil {
				out.Detection = append(out.Detection, r.Detection.Path)
			}
		}
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		_ = enc.Encode(out)
		return 0
	}
	if out.Config != "" {
		fmt.Fprintf(stdout, "config:           %s\n", out.Config)
	}
	fmt.Fprintf(stdout, "decision:         %s\n", out.Decision)
	fmt.Fprintf(stdout, "rule:             %s\n", out.Rule)
	fmt.Fprintf(stdout, "reason:           %s\n", out.Reason)
	fmt.Fprintf(stdout, "hidden:           %v\n", out.Hidden)
	if out.Error != nil {
		data := ""
		if out.Error.Data != nil {
			raw, _ := json.Marshal(out.Error.Data)
			data = " " + string(raw)
		}
		fmt.Fprintf(stdout, "error:            %d %s%s\n", out.Error.Code, out.Error.Message, data)
	}
	if d.Allowed {
		fmt.Fprintf(stdout, "transforms:       %s\n", strings.Join(out.Transforms, ", "))
		fmt.Fprintf(stdout, "input_transforms: %s\n", strings.Join(out.InputTransforms, ", "))
		rl := "none"
		if len(out.RateLimits) > 0 {
			rl = strings.Join(out.RateLimits, "\n                  ")
		}
		fmt.Fprintf(stdout, "rate_limits:      %s\n", rl)
		if len(out.Detection) > 0 {
			fmt.Fprintf(stdout, "detection:        %s\n", strings.Join(out.Detection, ", "))
		}
	}
	return 0
}

// principal is the caller explain and preview judge: --principal and
// --roles, or the envelope's anonymous id (else "anonymous") when no
// --principal was given, as the plugin names a caller without identity.
func (l *loaded) principal(id string, given bool, roles string) policy.Principal {
	pr := policy.Principal{ID: id, Roles: splitList(roles)}
	if !given {
		pr.ID = "anonymous"
		if l.Envelope != nil {
			pr.ID = l.Envelope.Identity.AnonymousID
		}
	}
	return pr
}

// decide judges a primitive as the plugin would, through the same
// judging.Judge over the envelope's server block alone: with
// server.require_known, one the server never listed is denied; a tool or
// prompt is also judged in every reading a server may make of its name
// (manual 6.7), a reading server.primitives knows with the metadata they
// give it, another with x's; a URI also as a WHATWG URL reader reads it.
func (l *loaded) decide(pr *policy.Principal, x *policy.Primitive, known bool) policy.Decision {
	server := &policy.ServerConfig{}
	if l.Envelope != nil {
		server = &l.Envelope.Server
	}
	j := judging.Judge{Policy: l.Policy, Server: server, Principal: *pr, Catalog: judging.ServerOnly{Server: server}}
	return j.DecideConcrete(x, known)
}

// rateCallOf is what rate limits see of a call to x by principal, as the
// plugin builds it: a tool or prompt name with its readings of ASCII
// characters and those known names (manual 6.7, 9), whose buckets it
// takes too.
func rateCallOf(x *policy.Primitive, principal string, known func(name string) bool) policy.Call {
	c := policy.Call{Kind: x.Kind, Name: x.Name, Principal: principal}
	if x.Kind != policy.KindTool && x.Kind != policy.KindPrompt {
		return c
	}
	for _, r := range policy.NameReadings(x.Name) {
		if policy.ASCIIName(r) || known(r) {
			c.Readings = append(c.Readings, r)
		}
	}
	return c
}
