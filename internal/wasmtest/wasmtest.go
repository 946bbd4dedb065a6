// Package wasmtest finds or builds the .wasm modules the e2e tests run: the
// plugin (build/mcp-privacy.wasm, built by `make wasm` when missing) and the
// scripted test plugin of internal/wasmhost/testdata/testplugin (built with the
// same patched SDK, through the build/wasm.mod that `make wasm` generates).
package wasmtest

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// RepoRoot returns the directory of the repository's go.mod, searching up
// from the working directory.
func RepoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		b, err := os.ReadFile(filepath.Join(dir, "go.mod"))
		if err == nil && bytes.Contains(b, []byte("module github.com/cloudg/mcp-privacy\n")) {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("wasmtest: go.mod of github.com/cloudg/mcp-privacy not found above the working directory")
		}
		dir = parent
	}
}

// cleanEnv is the environment for child builds: the caller's GOFLAGS
// (e.g. -race), GOOS, GOARCH, ... must not leak into a wasm build.
func cleanEnv(extra ...string) []string {
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		switch k {
		case "GOFLAGS", "GOOS", "GOARCH", "GOARM", "GOWASM", "CGO_ENABLED", "GOEXPERIMENT", "GOWORK":
			continue
		}
		env = append(env, kv)
	}
	return append(env, extra...)
}

var (
	pluginOnce sync.Once
	pluginErr  error
	pluginPath string
)

// PluginPath builds build/mcp-privacy.wasm (once per test process; the
// build is incremental, about a second when nothing changed) and returns
// its path. It always builds, so tests never run a module older than the
// source.
func PluginPath() (string, error) {
	pluginOnce.Do(func() {
		pluginPath, pluginErr = buildPlugin("mcp-privacy.wasm", "")
	})
	return pluginPath, pluginErr
}

// buildPlugin runs scripts/build-wasm.sh for build/<name> with extra tags.
func buildPlugin(name, tags string) (string, error) {
	root, err := RepoRoot()
	if err != nil {
		return "", err
	}
	out := filepath.Join(root, "build", name)
	cmd := exec.Command("bash", filepath.Join(root, "scripts", "build-wasm.sh"), out)
	cmd.Dir = root
	cmd.Env = cleanEnv("TAGS=" + tags)
	if b, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("wasmtest: building %s: %v\n%s", name, err, b)
	}
	return out, nil
}

var (
	hooksOnce sync.Once
	hooksPath string
	hooksErr  error
)

// PluginWithTestHooks builds and returns the plugin with the
// mcpprivacy_testhooks tag: a request header x-mcp-privacy-test-panic:
// <callback> makes that callback panic (plugin/testhook_on.go).
func PluginWithTestHooks(tb testing.TB) []byte {
	tb.Helper()
	hooksOnce.Do(func() {
		hooksPath, hooksErr = buildPlugin("mcp-privacy-testhooks.wasm", "mcpprivacy_testhooks")
	})
	if hooksErr != nil {
		tb.Fatal(hooksErr)
	}
	b, err := os.ReadFile(hooksPath)
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

// Plugin returns the bytes of build/mcp-privacy.wasm (see PluginPath).
func Plugin(tb testing.TB) []byte {
	tb.Helper()
	p, err := PluginPath()
	if err != nil {
		tb.Fatal(err)
	}
	b, err := os.ReadFile(p)
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

var (
	testPluginOnce sync.Once
	testPluginErr  error
	testPluginWasm []byte
)

// TestPlugin builds (once per test binary) and returns the scripted test
// plugin of internal/wasmhost/testdata/testplugin.
func TestPlugin(tb testing.TB) []byte {
	tb.Helper()
	testPluginOnce.Do(func() {
		if _, err := PluginPath(); err != nil { // provides build/wasm.mod and build/sdk
			testPluginErr = err
			return
		}
		root, _ := RepoRoot()
		dir, err := os.MkdirTemp("", "wasmtest-")
		if err != nil {
			testPluginErr = err
			return
		}
		defer os.RemoveAll(dir)
		out := filepath.Join(dir, "testplugin.wasm")
		cmd := exec.Command("go", "build", "-modfile=build/wasm.mod", "-mod=readonly",
			"-buildmode=c-shared", "-trimpath", "-buildvcs=false", "-o", out,
			"./internal/wasmhost/testdata/testplugin")
		cmd.Dir = root
		cmd.Env = cleanEnv("GOOS=wasip1", "GOARCH=wasm", "CGO_ENABLED=0", "GOWORK=off")
		if b, err := cmd.CombinedOutput(); err != nil {
			testPluginErr = fmt.Errorf("wasmtest: building the test plugin: %v\n%s", err, b)
			return
		}
		testPluginWasm, testPluginErr = os.ReadFile(out)
	})
	if testPluginErr != nil {
		tb.Fatal(testPluginErr)
	}
	// Read the sources in this process so that go test's result cache
	// notices when they change (it does not see what the go build child
	// reads).
	if root, err := RepoRoot(); err == nil {
		files, _ := filepath.Glob(filepath.Join(root, "internal", "wasmhost", "testdata", "testplugin", "*.go"))
		for _, f := range files {
			_, _ = os.ReadFile(f)
		}
	}
	return testPluginWasm
}
