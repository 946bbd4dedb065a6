package main

import (
	"bytes"
	"io"
	"log"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/registry"
	"github.com/google/go-containerregistry/pkg/v1/remote"

	"github.com/cloudg/mcp-privacy/internal/ociimage"
)

// TestImageBuildAndPush: image build writes a layout whose digest image
// push reports; the registry then serves, by the tag and by the digest a
// WasmPlugin would pin, an image whose plugin.wasm is the file built.
func TestImageBuildAndPush(t *testing.T) {
	srv := httptest.NewServer(registry.New(registry.Logger(log.New(io.Discard, "", 0))))
	defer srv.Close()
	host := strings.TrimPrefix(srv.URL, "http://")

	dir := t.TempDir()
	wasm := append([]byte("\x00asm\x01\x00\x00\x00"), bytes.Repeat([]byte("plugin"), 500)...)
	wasmPath := filepath.Join(dir, "plugin.wasm")
	if err := os.WriteFile(wasmPath, wasm, 0o600); err != nil {
		t.Fatal(err)
	}
	layoutDir := filepath.Join(dir, "image")
	code, out, errOut := runCLI("image", "build", "-o", layoutDir, wasmPath)
	if code != 0 {
		t.Fatalf("build: %d %s", code, errOut)
	}
	built := regexp.MustCompile(`sha256:[0-9a-f]{64}`).FindString(out)
	if built == "" {
		t.Fatalf("build printed no digest: %s", out)
	}

	ref := host + "/team/mcp-privacy:1.0"
	code, out, errOut = runCLI("image", "push", "--insecure", "--layout", layoutDir, ref)
	if code != 0 {
		t.Fatalf("push: %d %s", code, errOut)
	}
	pin := regexp.MustCompile(`sha256: ([0-9a-f]{64})`).FindStringSubmatch(out)
	if pin == nil || "sha256:"+pin[1] != built {
		t.Fatalf("push printed %q; the layout's digest is %s", out, built)
	}
	for _, pull := range []string{ref, host + "/team/mcp-privacy@" + built} {
		r, err := name.ParseReference(pull, name.Insecure)
		if err != nil {
			t.Fatal(err)
		}
		img, err := remote.Image(r)
		if err != nil {
			t.Fatalf("%s: %v", pull, err)
		}
		if d, _ := img.Digest(); d.String() != built {
			t.Errorf("%s: digest %s, built %s", pull, d, built)
		}
		if got, err := ociimage.Module(img); err != nil || !bytes.Equal(got, wasm) {
			t.Errorf("%s: module back %d bytes, %v", pull, len(got), err)
		}
	}

	// --wasm packs and pushes in one step, to the same digest.
	code, out, errOut = runCLI("image", "push", "--insecure", "--wasm", wasmPath, host+"/team/other:1")
	if code != 0 || !strings.Contains(out, pin[1]) {
		t.Errorf("push --wasm: %d %q %s", code, out, errOut)
	}
}

func TestImageCommandErrors(t *testing.T) {
	dir := t.TempDir()
	notWasm := filepath.Join(dir, "x.wasm")
	if err := os.WriteFile(notWasm, []byte("#!/bin/sh"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"image"}, 2, "Usage"},
		{[]string{"image", "frobnicate"}, 2, "unknown command"},
		{[]string{"image", "build", "-o", filepath.Join(dir, "i"), filepath.Join(dir, "missing.wasm")}, 1, "make wasm"},
		{[]string{"image", "build", "-o", filepath.Join(dir, "i"), notWasm}, 1, "not a WebAssembly module"},
		{[]string{"image", "push", "--layout", filepath.Join(dir, "none"), "localhost:1/x:1"}, 1, "make image"},
		{[]string{"image", "push", "--layout", "a", "--wasm", "b", "r"}, 2, "Usage"},
		{[]string{"image", "push"}, 2, "Usage"},
	} {
		code, _, errOut := runCLI(c.args...)
		if code != c.code || !strings.Contains(errOut, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want %d and %q", c.args, code, errOut, c.code, c.want)
		}
	}
	for _, help := range [][]string{{"image", "--help"}, {"image", "build", "--help"}, {"image", "push", "-h"}} {
		if code, out, _ := runCLI(help...); code != 0 || !strings.Contains(out, "image build") {
			t.Errorf("%v: exit %d, %q", help, code, out)
		}
	}
}
