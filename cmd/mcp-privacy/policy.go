package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/cloudg/mcp-privacy/policy"
)

// loaded is a configuration file read by the CLI: a bare policy or an
// envelope (then Envelope is set too), or a configuration with Higress's
// _rules_ (Rules; Policy and Envelope are then the global part's, nil
// without one).
type loaded struct {
	Policy   *policy.Policy
	Envelope *policy.Envelope
	Rules    *policy.HostRules
	// Doc is the configuration document (a Higress WasmPlugin's injected).
	Doc *policy.Value
}

// load reads FILE as an envelope or a bare policy, resolving extends
// against the file system.
func load(file string) (*loaded, policy.Errors) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, policy.Errors{{Msg: err.Error()}}
	}
	doc, err := policy.ParseDocument(data)
	if err != nil {
		return nil, policy.Errors{{Path: file, Msg: err.Error()}}
	}
	opt := policy.Options{File: file, ReadFile: os.ReadFile}
	if doc, err = higressResource(doc); err != nil {
		return nil, policy.Errors{{Path: file, Msg: err.Error()}}
	}
	if policy.HasHostRules(doc) {
		h, errs := policy.DecodeHostRules(doc, opt)
		if len(errs) > 0 {
			return nil, errs
		}
		l := &loaded{Rules: h, Envelope: h.Global, Doc: doc}
		if h.Global != nil {
			l.Policy = h.Global.Policy
		}
		return l, nil
	}
	if policy.IsEnvelope(doc) {
		env, errs := policy.DecodeEnvelope(doc, opt)
		if len(errs) > 0 {
			return nil, errs
		}
		return &loaded{Policy: env.Policy, Envelope: env, Doc: doc}, nil
	}
	p, errs := policy.DecodePolicy(doc, "", opt)
	if len(errs) > 0 {
		return nil, errs
	}
	return &loaded{Policy: p, Doc: doc}, nil
}

// oneFile parses "[flags] FILE" for the policy subcommands.
func oneFile(name string, args []string, stderr io.Writer, jsonFlag *bool) (string, bool) {
	fs := flag.NewFlagSet("policy "+name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), policyUsage)
		fs.PrintDefaults()
	}
	if jsonFlag != nil {
		fs.BoolVar(jsonFlag, "json", false, "print JSON")
	}
	if err := fs.Parse(args); err != nil {
		return "", false
	}
	rest := fs.Args()
	// Allow flags after the file too: policy describe FILE --json.
	if len(rest) == 2 && jsonFlag != nil && rest[1] == "--json" {
		*jsonFlag, rest = true, rest[:1]
	}
	if len(rest) != 1 {
		fmt.Fprintf(stderr, "usage: mcp-privacy policy %s FILE\n", name)
		return "", false
	}
	return rest[0], true
}

func printErrors(stderr io.Writer, file string, errs policy.Errors) {
	fmt.Fprintf(stderr, "%s: %d error(s)\n", file, len(errs))
	for _, e := range errs {
		fmt.Fprintf(stderr, "  %s\n", e.Error())
	}
}

func policyCheck(args []string, stdout, stderr io.Writer) int {
	file, ok := oneFile("check", args, stderr, nil)
	if !ok {
		return 2
	}
	l, errs := load(file)
	if len(errs) > 0 {
		printErrors(stderr, file, errs)
		return 1
	}
	fmt.Fprintln(stdout, "ok")
	if l.Rules != nil {
		printHostRules(stdout, l.Rules)
	}
	// Behind an aggregating router (server.router_backends), globs written
	// with the servers' own names match nothing (manual 4).
	if l.Envelope != nil {
		for _, w := range l.Envelope.RouterWarnings() {
			fmt.Fprintf(stderr, "warning: %s: %s\n", file, w)
		}
	}
	return 0
}

func policyFlatten(args []string, stdout, stderr io.Writer) int {
	file, ok := oneFile("flatten", args, stderr, nil)
	if !ok {
		return 2
	}
	l, errs := load(file)
	if len(errs) > 0 {
		printErrors(stderr, file, errs)
		return 1
	}
	if l.Rules != nil {
		fmt.Fprintf(stderr, "%s has Higress _rules_: policy flatten works on one policy; policy check lists the rules (docs/MCP_PRIVACY.md, section 2, Higress)\n", file)
		return 2
	}
	if l.Policy.Vault.Key != "" {
		// The key is never printed (manual 13); the flattened policy reads it
		// from the environment instead.
		fmt.Fprintf(stderr, "note: vault.key left out; supply the key through %s\n", l.Policy.Vault.KeyEnv)
	}
	fmt.Fprintln(stdout, l.Policy.Redacted().JSON("  "))
	return 0
}

func policyDescribe(args []string, stdout, stderr io.Writer) int {
	var asJSON bool
	file, ok := oneFile("describe", args, stderr, &asJSON)
	if !ok {
		return 2
	}
	l, errs := load(file)
	if len(errs) > 0 {
		printErrors(stderr, file, errs)
		return 1
	}
	if l.Rules != nil {
		fmt.Fprintf(stderr, "%s has Higress _rules_: policy describe works on one policy; policy check lists the rules (docs/MCP_PRIVACY.md, section 2, Higress)\n", file)
		return 2
	}
	d := l.Policy.Describe(os.LookupEnv)
	if asJSON {
		out, _ := json.MarshalIndent(d, "", "  ")
		fmt.Fprintln(stdout, string(out))
		return 0
	}
	fmt.Fprint(stdout, d.Text())
	return 0
}
