package e2e_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cloudg/mcp-privacy/internal/wasmtest"
)

// MCP servers on the TypeScript SDK, run with the machine's Node.js. Each
// SDK line is installed once per checkout under build/ (reused while its
// versions match): v1 (@modelcontextprotocol/sdk, build/ts-sdk, see
// rqTSInstall) and v2 (@modelcontextprotocol/server with its Node
// adapter, build/ts-sdk-v2), which speaks 2026-07-28 as well as the 2025
// revisions. A server script lives under e2e/testdata/<sdk dir>/, is
// copied with the modules beside it next to the packages it imports, and prints "LISTENING <port>"
// once it listens on 127.0.0.1.

// tsV2Packages are the npm packages of the TypeScript SDK v2 servers, at
// the versions the tests were written against.
var tsV2Packages = map[string]string{
	"@modelcontextprotocol/server": "2.4.0",
	"@modelcontextprotocol/core":   "2.4.0",
	"@modelcontextprotocol/node":   "2.1.2",
	"zod":                          "4.6.7",
}

var (
	tsV2Once sync.Once
	tsV2Dir  string
	tsV2Err  error
)

// tsV2Install installs tsV2Packages into build/ts-sdk-v2 and returns that
// directory.
func tsV2Install() (string, error) {
	tsV2Once.Do(func() {
		root, err := wasmtest.RepoRoot()
		if err != nil {
			tsV2Err = err
			return
		}
		tsV2Dir = filepath.Join(root, "build", "ts-sdk-v2")
		tsV2Err = npmInstall(tsV2Dir, "e2e/nodeservers_test.go", tsV2Packages)
	})
	return tsV2Dir, tsV2Err
}

// npmInstall installs packages (name: exact version) into dir, unless
// every one is there at its version already.
func npmInstall(dir, by string, packages map[string]string) error {
	installed := func(name, version string) bool {
		b, err := os.ReadFile(filepath.Join(dir, "node_modules", name, "package.json"))
		var p struct{ Version string }
		return err == nil && json.Unmarshal(b, &p) == nil && p.Version == version
	}
	missing := false
	for name, version := range packages {
		missing = missing || !installed(name, version)
	}
	if !missing {
		return nil
	}
	deps, err := json.Marshal(packages)
	if err != nil {
		return err
	}
	pkg := fmt.Sprintf("{\n  \"private\": true,\n  \"description\": \"mcp-privacy: %s installs this; not committed\",\n  \"dependencies\": %s\n}\n", by, deps)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "package.json"), []byte(pkg), 0o644); err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), rqTSInstallTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "npm", "install", "--prefix", dir, "--no-audit", "--no-fund", "--loglevel=error")
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("npm install into %s: %v\n%s", dir, err, out)
	}
	return nil
}

// tsV2Server starts e2e/testdata/tsv2server/<script> on the TypeScript
// SDK v2 and returns its base URL; args reach the script as process.argv.
func tsV2Server(t *testing.T, script string, args ...string) string {
	t.Helper()
	dir, err := tsV2Install()
	if err != nil {
		t.Fatal(err)
	}
	return startNodeServer(t, dir, filepath.Join("e2e", "testdata", "tsv2server", script), args...)
}

// startNodeServer copies script (a path from the repository's root), and
// the modules beside it, into dir, where its packages are installed, runs it with node until the test
// ends, and returns the base URL it announced.
func startNodeServer(t *testing.T, dir, script string, args ...string) string {
	t.Helper()
	root, err := wasmtest.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	// The script and the modules beside it that it may import.
	mods, err := filepath.Glob(filepath.Join(root, filepath.Dir(script), "*.mjs"))
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range mods {
		src, err := os.ReadFile(m)
		if err == nil {
			err = os.WriteFile(filepath.Join(dir, filepath.Base(m)), src, 0o644)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	name := filepath.Base(script)
	cmd := exec.Command("node", append([]string{name}, args...)...)
	cmd.Dir = dir
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatalf("node: %v", err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	port := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if p, ok := strings.CutPrefix(sc.Text(), "LISTENING "); ok {
				port <- p
			}
		}
		close(port)
	}()
	select {
	case p, ok := <-port:
		if !ok {
			t.Fatalf("%s exited: %s", script, stderr.String())
		}
		return "http://127.0.0.1:" + p
	case <-time.After(60 * time.Second):
		t.Fatalf("%s did not start: %s", script, stderr.String())
	}
	return ""
}

// tsV1Server starts e2e/testdata/tsserver/<script> on the TypeScript SDK
// v1 (@modelcontextprotocol/sdk with Express) and returns its base URL.
func tsV1Server(t *testing.T, script string, args ...string) string {
	t.Helper()
	dir, err := rqTSInstall()
	if err != nil {
		t.Fatal(err)
	}
	return startNodeServer(t, dir, filepath.Join("e2e", "testdata", "tsserver", script), args...)
}

// The v2 install works and its server answers a tools/call at 2026-07-28
// and at 2025-11-25 (its stateless fallback: no initialize), straight, without the plugin.
func TestTSV2ServerAnswers(t *testing.T) {
	base := tsV2Server(t, "hello.mjs")
	for _, c := range []struct{ name, body string }{
		{"2026-07-28", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"hello","arguments":{"who":"ann"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"e2e","version":"1"},"io.modelcontextprotocol/clientCapabilities":{}}}}`},
		{"2025-11-25", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"hello","arguments":{"who":"ann"}}}`},
	} {
		t.Run(c.name, func(t *testing.T) {
			res := rqRaw(t, base, "POST", "/mcp", [][2]string{{"content-type", "application/json"}, {"accept", "application/json, text/event-stream"}, {"mcp-protocol-version", c.name}, {"mcp-method", "tools/call"}, {"mcp-name", "hello"}}, c.body, false)
			if res.status != 200 || !strings.Contains(res.body, "hello ann") {
				t.Fatalf("%d %s", res.status, res.body)
			}
		})
	}
}
