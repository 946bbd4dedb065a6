package main

import (
	"strings"
	"testing"

	"github.com/cloudg/mcp-privacy/policy"
)

// TestEveryCommandHelpExitsZero: --help (or -h) of every command and
// subcommand prints its usage on stdout and exits 0; an unknown
// subcommand is a usage error naming it.
func TestEveryCommandHelpExitsZero(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--help"}, "mcp-privacy policy check"},
		{[]string{"help"}, "mcp-privacy serve"},
		{[]string{"policy", "--help"}, "mcp-privacy policy flatten"},
		{[]string{"policy", "-h"}, "mcp-privacy policy describe"},
		{[]string{"policy", "check", "--help"}, "mcp-privacy policy check FILE"},
		{[]string{"policy", "flatten", "-h"}, "mcp-privacy policy flatten FILE"},
		{[]string{"policy", "describe", "--help"}, "-json"},
		{[]string{"policy", "schema", "--help"}, "mcp-privacy policy schema"},
		{[]string{"policy", "test", "--help"}, "mcp-privacy policy test [--junit FILE] [-v] PATH..."},
		{[]string{"policy", "test", "x_test.yaml", "-h"}, "-junit"},
		{[]string{"policy", "diff", "--help"}, "mcp-privacy policy diff OLD NEW"},
		{[]string{"policy", "matrix", "--help"}, "mcp-privacy policy matrix FILE"},
		{[]string{"explain", "--help"}, "-tool"},
		{[]string{"preview", "--help"}, "mcp-privacy preview --policy FILE"},
		{[]string{"serve", "--help"}, "-upstream"},
		{[]string{"serve", "--policy", "x.yaml", "-h"}, "-upstream"},
		{[]string{"image", "--help"}, "mcp-privacy image build"},
		{[]string{"image", "push", "--help"}, "mcp-privacy image push"},
	} {
		code, out, errOut := runCLI(c.args...)
		if code != 0 || !strings.Contains(out, c.want) || errOut != "" {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want 0 and %q on stdout", c.args, code, out, errOut, c.want)
		}
	}
	for _, args := range [][]string{{"policy"}, {"policy", "lint"}, {"frobnicate"}} {
		code, _, errOut := runCLI(args...)
		if code != 2 || !strings.Contains(errOut, "Usage") {
			t.Errorf("%v: exit %d, stderr %q; want 2 and the usage", args, code, errOut)
		}
	}
	if _, _, errOut := runCLI("policy", "lint"); !strings.Contains(errOut, `unknown command "lint"`) {
		t.Errorf("policy lint: %q", errOut)
	}
}

// TestPolicySchemaCommand: policy schema prints the package's JSON Schema.
func TestPolicySchemaCommand(t *testing.T) {
	code, out, errOut := runCLI("policy", "schema")
	if code != 0 || out != string(policy.JSONSchema()) || errOut != "" {
		t.Errorf("exit %d, %d bytes (want %d), stderr %q", code, len(out), len(policy.JSONSchema()), errOut)
	}
	if code, _, _ := runCLI("policy", "schema", "extra"); code != 2 {
		t.Errorf("policy schema extra: exit %d, want 2", code)
	}
}
