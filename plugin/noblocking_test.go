package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The module must never arm a Go runtime timer, start a goroutine or block:
// doing so switches on the runtime's network poller, and from then on every
// garbage collection calls WASI poll_oneoff, which Envoy <= 1.38 answers
// with ENOSYS, and the VM aborts (see internal/wasmhost TestPollOneoffGC and
// TestPluginSurvivesGCOnENOSYSHost). This test keeps such code out of every
// package the .wasm is built from.
func TestNoTimersOrGoroutinesInTheModule(t *testing.T) {
	forbidden := map[string]bool{
		"time.Sleep": true, "time.After": true, "time.AfterFunc": true, "time.NewTimer": true,
		"time.NewTicker": true, "time.Tick": true, "runtime.Gosched": true,
		"context.WithTimeout": true, "context.WithDeadline": true,
		// crypto/rand arms a timer on first use; these read it inside.
		"cipher.NewGCMWithRandomNonce": true,
	}
	// The repository's packages the module is built from, as the go
	// command resolves them for wasip1 (the host under internal/wasmhost is
	// not one of them).
	list := exec.Command("go", "list", "-deps", "-f", "{{if not .Standard}}{{.ImportPath}} {{.Dir}}{{end}}", ".")
	list.Env = append(os.Environ(), "GOOS=wasip1", "GOARCH=wasm")
	out, err := list.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	var roots []string
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if path, dir, ok := strings.Cut(line, " "); ok && strings.HasPrefix(path, "github.com/cloudg/mcp-privacy") {
			roots = append(roots, dir)
		}
	}
	if len(roots) < 5 {
		t.Fatalf("the module's own packages: %q", roots)
	}
	fset := token.NewFileSet()
	for _, root := range roots {
		err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() {
				if path != root {
					return filepath.SkipDir // a package of its own, listed if built in
				}
				return nil
			}
			if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
				return nil
			}
			f, err := parser.ParseFile(fset, path, nil, parser.ParseComments)
			if err != nil {
				return err
			}
			for _, imp := range f.Imports {
				if imp.Path.Value == `"crypto/rand"` && !notInModule(f) {
					t.Errorf("%s: crypto/rand arms a runtime timer on first use: use internal/entropy", fset.Position(imp.Pos()))
				}
			}
			ast.Inspect(f, func(n ast.Node) bool {
				switch n := n.(type) {
				case *ast.GoStmt:
					t.Errorf("%s: go statement in code built into the module", fset.Position(n.Pos()))
				case *ast.SelectorExpr:
					if x, ok := n.X.(*ast.Ident); ok && forbidden[x.Name+"."+n.Sel.Name] {
						t.Errorf("%s: %s.%s in code built into the module", fset.Position(n.Pos()), x.Name, n.Sel.Name)
					}
				}
				return true
			})
			return nil
		})
		if err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
	}
}

// notInModule reports whether a file is excluded from the wasip1 build.
func notInModule(f *ast.File) bool {
	for _, g := range f.Comments {
		for _, c := range g.List {
			if c.Text == "//go:build !wasip1" {
				return true
			}
		}
	}
	return false
}
