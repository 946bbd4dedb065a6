// Command mcp-privacy is the operator CLI of the mcp-privacy plugin: it
// checks, flattens and describes policies, explains decisions, previews
// what a caller would receive, and serves the plugin in front of a server.
package main

import (
	"fmt"
	"io"
	"os"

	"github.com/cloudg/mcp-privacy/policy"
)

const usage = `mcp-privacy: privacy policy for MCP traffic through Envoy

Usage:
  mcp-privacy policy check FILE        validate a policy or plugin envelope
  mcp-privacy policy flatten FILE      print the policy with extends resolved (JSON)
  mcp-privacy policy describe [--json] FILE
                                       summarise the effective policy
  mcp-privacy policy schema            print the JSON Schema (2020-12) of policies
  mcp-privacy policy test [--junit FILE] [-v] PATH...
                                       run policy test files (*_test.yaml)
  mcp-privacy policy diff OLD NEW [--catalog FILE] [--format text|markdown|json]
                                       what a policy change grants and takes away
  mcp-privacy policy matrix FILE [--catalog FILE] [--format text|markdown|html|json]
                                       roles by primitives: who may call what
  mcp-privacy explain --policy FILE [--principal ID] [--roles a,b]
        (--tool NAME | --resource URI | --template URI_TEMPLATE | --prompt NAME)
        [--category C] [--tags a,b] [--sensitivity S] [--capabilities a,b]
        [--route NAME] [--domain HOST] [--service NAME] [--json]
                                       show how one call would be judged (Higress
                                       rules: the one --route/--domain/--service picks)
  mcp-privacy preview --policy FILE [--principal ID] [--roles a,b] [--tool NAME] [--json] < INPUT
                                       what the caller would receive for a tools/call
                                       result or plain text (mcp-privacy preview -h)
  mcp-privacy serve --policy FILE --upstream URL [--listen ADDR] [--wasm PATH] [--workers N] [--admin ADDR]
        [--host envoy|higress] [--route NAME=[HOST]/PATH-PREFIX]...
                                       run the plugin (build/mcp-privacy.wasm) under an
                                       Envoy-like host in front of an MCP server
  mcp-privacy image build [-o DIR] [WASM] | image push [--insecure] REF
                                       pack the plugin as an OCI image (Istio WasmPlugin,
                                       Envoy Gateway) and push it (mcp-privacy image -h)

FILE is YAML or JSON: a PolicyConfig, or a whole plugin envelope.
`

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run executes one command line and returns the exit status: 0 success,
// 1 a failed check or denied input, 2 a usage error.
func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return 2
	}
	if len(args) > 1 && asksHelp(args[1:]) {
		// A command's --help is an answer, not a usage error: its usage on
		// stdout, exit 0.
		if args[0] == "policy" && (len(args) == 2 || asksHelp(args[1:2])) {
			fmt.Fprint(stdout, policyUsage)
			return 0
		}
		if code := dispatch(args, stdout, stdout); code != 2 {
			return code
		}
		return 0
	}
	return dispatch(args, stdout, stderr)
}

// asksHelp: -h, -help or --help among args, before a "--".
func asksHelp(args []string) bool {
	for _, a := range args {
		switch a {
		case "--":
			return false
		case "-h", "-help", "--help":
			return true
		}
	}
	return false
}

const policyUsage = `Usage:
  mcp-privacy policy check FILE        validate a policy or plugin envelope
  mcp-privacy policy flatten FILE      print the policy with extends resolved (JSON)
  mcp-privacy policy describe [--json] FILE
                                       summarise the effective policy
  mcp-privacy policy schema            print the JSON Schema of policies and envelopes
                                       (for editors: docs/MCP_PRIVACY.md, section 6)
  mcp-privacy policy test [--junit FILE] [-v] PATH...
                                       run policy test files (*_test.yaml)
  mcp-privacy policy diff OLD NEW [--catalog FILE] [--format text|markdown|json]
                                       what a policy change grants and takes away
  mcp-privacy policy matrix FILE [--catalog FILE] [--format text|markdown|html|json]
                                       roles by primitives: who may call what
`

func dispatch(args []string, stdout, stderr io.Writer) int {
	switch args[0] {
	case "policy":
		if len(args) < 2 {
			fmt.Fprint(stderr, policyUsage)
			return 2
		}
		switch args[1] {
		case "check":
			return policyCheck(args[2:], stdout, stderr)
		case "flatten":
			return policyFlatten(args[2:], stdout, stderr)
		case "describe":
			return policyDescribe(args[2:], stdout, stderr)
		case "test":
			return policyTest(args[2:], stdout, stderr)
		case "diff":
			return policyDiff(args[2:], stdout, stderr)
		case "matrix":
			return policyMatrix(args[2:], stdout, stderr)
		case "schema":
			if len(args) > 2 {
				fmt.Fprint(stderr, policyUsage)
				return 2
			}
			stdout.Write(policy.JSONSchema())
			return 0
		}
		fmt.Fprintf(stderr, "mcp-privacy policy: unknown command %q\n\n%s", args[1], policyUsage)
		return 2
	case "explain":
		return explain(args[1:], stdout, stderr)
	case "preview":
		return preview(args[1:], os.Stdin, stdout, stderr)
	case "serve":
		return serve(args[1:], stdout, stderr)
	case "image":
		return image(args[1:], stdout, stderr)
	case "help", "-h", "--help":
		fmt.Fprint(stdout, usage)
		return 0
	}
	fmt.Fprintf(stderr, "mcp-privacy: unknown command %q\n\n%s", args[0], usage)
	return 2
}
