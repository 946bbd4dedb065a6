package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestExplainDetection: explain names the detection blocks whose allow
// lists and dictionaries a call's pipelines use (manual 12.9.6).
func TestExplainDetection(t *testing.T) {
	dir := writeFiles(t, map[string]string{"p.yaml": `
transforms: [redact]
detection: {allow: [{values: [support@example.com]}]}
rules:
  - match: {names: ["qa_*"]}
    detection: {dictionaries: [{name: codes, terms: [Bluebird]}]}
`})
	file := filepath.Join(dir, "p.yaml")
	_, out, errOut := runCLI("explain", "--policy", file, "--tool", "qa_lookup")
	if !strings.Contains(out, "detection:        detection, rules[0].detection") {
		t.Errorf("qa_lookup:\n%s%s", out, errOut)
	}
	_, out, _ = runCLI("explain", "--policy", file, "--tool", "lookup", "--json")
	if !strings.Contains(out, `"detection": [`) || strings.Contains(out, "rules[0].detection") {
		t.Errorf("lookup --json:\n%s", out)
	}
}
