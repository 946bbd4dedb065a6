package ociimage

import (
	"bytes"
	"encoding/json"
	"io"
	"log"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/registry"
	"github.com/google/go-containerregistry/pkg/v1/remote"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// module is a stand-in .wasm: the header, then bytes that differ per seed.
func module(seed string) []byte {
	return append(append([]byte{}, wasmMagic...), []byte("\x01\x00\x00\x00"+strings.Repeat(seed, 1000))...)
}

func TestImageIsReproducible(t *testing.T) {
	digest := func(w []byte) string {
		img, err := Image(w, "mcp-privacy")
		if err != nil {
			t.Fatal(err)
		}
		d, err := img.Digest()
		if err != nil {
			t.Fatal(err)
		}
		return d.String()
	}
	a, b, c := digest(module("a")), digest(module("a")), digest(module("b"))
	if a != b {
		t.Errorf("the same module gave two digests: %s, %s", a, b)
	}
	if a == c {
		t.Errorf("two modules gave one digest %s", a)
	}
}

func TestImageRefusesWhatIsNotWasm(t *testing.T) {
	for _, in := range [][]byte{nil, []byte("asm"), []byte("\x7fELF....")} {
		if _, err := Image(in, ""); err == nil {
			t.Errorf("%q: packed", in)
		}
	}
}

// TestImageShape: what Istio's and Envoy Gateway's fetchers check for the
// compat variant: an OCI manifest, one tar+gzip layer, plugin.wasm in it.
func TestImageShape(t *testing.T) {
	w := module("x")
	img, err := Image(w, "mcp-privacy")
	if err != nil {
		t.Fatal(err)
	}
	m, err := img.Manifest()
	if err != nil {
		t.Fatal(err)
	}
	if m.MediaType != types.OCIManifestSchema1 || m.Config.MediaType != types.OCIConfigJSON {
		t.Errorf("manifest %s, config %s", m.MediaType, m.Config.MediaType)
	}
	if len(m.Layers) != 1 || m.Layers[0].MediaType != types.OCILayer {
		t.Fatalf("layers %+v", m.Layers)
	}
	if m.Annotations["org.opencontainers.image.title"] != "mcp-privacy" {
		t.Errorf("annotations %v", m.Annotations)
	}
	cfg, err := img.ConfigFile()
	if err != nil {
		t.Fatal(err)
	}
	if cfg.OS != "wasip1" || cfg.Architecture != "wasm" || len(cfg.RootFS.DiffIDs) != 1 {
		t.Errorf("config %+v", cfg)
	}
	// The config's diff ID is the uncompressed tar's digest, as for any image.
	layers, _ := img.Layers()
	if d, _ := layers[0].DiffID(); d != cfg.RootFS.DiffIDs[0] {
		t.Errorf("diff ID %s, config says %s", d, cfg.RootFS.DiffIDs[0])
	}
	got, err := Module(img)
	if err != nil || !bytes.Equal(got, w) {
		t.Errorf("module back: %d bytes, %v", len(got), err)
	}
}

func TestLayoutRoundTrip(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "image")
	w := module("layout")
	img, err := Image(w, "")
	if err != nil {
		t.Fatal(err)
	}
	// Writing twice replaces: the layout holds one image.
	for range 2 {
		if err := WriteLayout(dir, img, "latest"); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "oci-layout")); err != nil {
		t.Fatal(err)
	}
	var index struct {
		Manifests []struct {
			MediaType   string            `json:"mediaType"`
			Digest      string            `json:"digest"`
			Annotations map[string]string `json:"annotations"`
		} `json:"manifests"`
	}
	raw, err := os.ReadFile(filepath.Join(dir, "index.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, &index); err != nil {
		t.Fatal(err)
	}
	want, _ := img.Digest()
	if len(index.Manifests) != 1 || index.Manifests[0].Digest != want.String() ||
		index.Manifests[0].Annotations["org.opencontainers.image.ref.name"] != "latest" {
		t.Fatalf("index.json: %s", raw)
	}
	back, err := FromLayout(dir)
	if err != nil {
		t.Fatal(err)
	}
	if d, _ := back.Digest(); d != want {
		t.Errorf("digest back %s, want %s", d, want)
	}
	if got, err := Module(back); err != nil || !bytes.Equal(got, w) {
		t.Errorf("module back: %d bytes, %v", len(got), err)
	}
}

// TestPushPullByteIdentical pushes to go-containerregistry's in-process
// registry and pulls back by tag and by the digest a WasmPlugin pins.
func TestPushPullByteIdentical(t *testing.T) {
	srv := httptest.NewServer(registry.New(registry.Logger(log.New(io.Discard, "", 0))))
	defer srv.Close()
	host := strings.TrimPrefix(srv.URL, "http://")
	w := module("push")
	img, err := Image(w, "mcp-privacy")
	if err != nil {
		t.Fatal(err)
	}
	ref := host + "/mcp-privacy/plugin:v1"
	digest, err := Push(ref, img, true)
	if err != nil {
		t.Fatal(err)
	}
	if want, _ := img.Digest(); digest != want {
		t.Errorf("push returned %s, the image is %s", digest, want)
	}
	for _, pull := range []string{ref, host + "/mcp-privacy/plugin@" + digest.String()} {
		r, err := name.ParseReference(pull, name.Insecure)
		if err != nil {
			t.Fatal(err)
		}
		got, err := remote.Image(r)
		if err != nil {
			t.Fatalf("%s: %v", pull, err)
		}
		if d, _ := got.Digest(); d != digest {
			t.Errorf("%s: digest %s, pushed %s", pull, d, digest)
		}
		m, err := Module(got)
		if err != nil || !bytes.Equal(m, w) {
			t.Errorf("%s: module back %d bytes (pushed %d), %v", pull, len(m), len(w), err)
		}
	}
	if _, err := Push("not a reference", img, true); err == nil {
		t.Error("a malformed reference was accepted")
	}
}
