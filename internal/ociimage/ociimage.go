// Package ociimage packs the plugin's .wasm into an OCI image that Istio's
// WasmPlugin (url: oci://…) and Envoy Gateway's Wasm code source
// (code.type: Image) pull, writes it as an OCI image layout, and pushes it
// to a registry.
//
// The image is the "compat" variant of the Wasm image conventions: an OCI
// manifest with one tar+gzip layer holding plugin.wasm at its root. Both
// pullers accept it (they try it first), and so does any registry or tool
// that knows container images; the other variant (a raw
// application/vnd.module.wasm.content.layer.v1+wasm layer) is refused by
// Istio releases that expect it with a second, runtime-config layer.
//
// The image is reproducible: the same .wasm gives the same bytes and so the
// same manifest digest, the value a WasmPlugin's sha256 field pins.
package ociimage

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/google/go-containerregistry/pkg/authn"
	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/remote"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// PluginFile is the name the compat variant's layer gives the module.
const PluginFile = "plugin.wasm"

// wasmMagic opens every WebAssembly binary module.
var wasmMagic = []byte{0x00, 'a', 's', 'm'}

// Image is the plugin's image: one layer, plugin.wasm inside, an OCI
// manifest and config. title goes into the org.opencontainers.image.title
// annotation (empty: none).
func Image(wasm []byte, title string) (v1.Image, error) {
	if !bytes.HasPrefix(wasm, wasmMagic) {
		return nil, errors.New("not a WebAssembly module (no \\0asm header)")
	}
	layerBytes, err := layerOf(wasm)
	if err != nil {
		return nil, err
	}
	layer, err := tarball.LayerFromOpener(func() (io.ReadCloser, error) {
		return io.NopCloser(bytes.NewReader(layerBytes)), nil
	}, tarball.WithMediaType(types.OCILayer))
	if err != nil {
		return nil, err
	}
	img := mutate.MediaType(empty.Image, types.OCIManifestSchema1)
	img = mutate.ConfigMediaType(img, types.OCIConfigJSON)
	img, err = mutate.Append(img, mutate.Addendum{Layer: layer, History: v1.History{CreatedBy: "mcp-privacy image build"}})
	if err != nil {
		return nil, err
	}
	cfg, err := img.ConfigFile()
	if err != nil {
		return nil, err
	}
	cfg = cfg.DeepCopy()
	// wasip1/wasm says what the module needs; pullers ignore the platform.
	cfg.OS, cfg.Architecture = "wasip1", "wasm"
	cfg.History[0].Created = v1.Time{Time: time.Unix(0, 0).UTC()}
	if img, err = mutate.ConfigFile(img, cfg); err != nil {
		return nil, err
	}
	if title != "" {
		img = mutate.Annotations(img, map[string]string{"org.opencontainers.image.title": title}).(v1.Image)
	}
	return img, nil
}

// layerOf is the layer's bytes: a gzip'd tar of plugin.wasm with fixed
// owner, mode and times, so the digest depends on the module only.
func layerOf(wasm []byte) ([]byte, error) {
	var tarred bytes.Buffer
	tw := tar.NewWriter(&tarred)
	hdr := &tar.Header{
		Typeflag: tar.TypeReg,
		Name:     PluginFile,
		Mode:     0o644,
		Size:     int64(len(wasm)),
		ModTime:  time.Unix(0, 0).UTC(),
		Format:   tar.FormatPAX,
	}
	if err := tw.WriteHeader(hdr); err != nil {
		return nil, err
	}
	if _, err := tw.Write(wasm); err != nil {
		return nil, err
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	var zipped bytes.Buffer
	zw, err := gzip.NewWriterLevel(&zipped, gzip.BestCompression)
	if err != nil {
		return nil, err
	}
	if _, err := zw.Write(tarred.Bytes()); err != nil {
		return nil, err
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return zipped.Bytes(), nil
}

// WriteLayout writes img as an OCI image layout at dir (replacing what is
// there), the image tagged ref.name = tag in the index.
func WriteLayout(dir string, img v1.Image, tag string) error {
	if err := os.RemoveAll(dir); err != nil {
		return err
	}
	p, err := layout.Write(dir, empty.Index)
	if err != nil {
		return err
	}
	var opts []layout.Option
	if tag != "" {
		opts = append(opts, layout.WithAnnotations(map[string]string{"org.opencontainers.image.ref.name": tag}))
	}
	return p.AppendImage(img, opts...)
}

// FromLayout reads the one image of the OCI image layout at dir.
func FromLayout(dir string) (v1.Image, error) {
	idx, err := layout.ImageIndexFromPath(dir)
	if err != nil {
		return nil, err
	}
	m, err := idx.IndexManifest()
	if err != nil {
		return nil, err
	}
	if len(m.Manifests) != 1 {
		return nil, fmt.Errorf("%s: the layout holds %d images, want 1", dir, len(m.Manifests))
	}
	return idx.Image(m.Manifests[0].Digest)
}

// Push sends img to the registry reference ref (a tag or digest), with the
// credentials of the Docker config (docker login, DOCKER_CONFIG) or
// anonymously; insecure allows plain HTTP. It returns the manifest digest.
func Push(ref string, img v1.Image, insecure bool, opts ...remote.Option) (v1.Hash, error) {
	var nameOpts []name.Option
	if insecure {
		nameOpts = append(nameOpts, name.Insecure)
	}
	r, err := name.ParseReference(ref, nameOpts...)
	if err != nil {
		return v1.Hash{}, err
	}
	opts = append([]remote.Option{remote.WithAuthFromKeychain(authn.DefaultKeychain)}, opts...)
	if err := remote.Write(r, img, opts...); err != nil {
		return v1.Hash{}, err
	}
	return img.Digest()
}

// Module is the .wasm inside an image of the compat variant: what Istio
// and Envoy Gateway extract from it (one tar+gzip layer; plugin.wasm in it).
func Module(img v1.Image) ([]byte, error) {
	layers, err := img.Layers()
	if err != nil {
		return nil, err
	}
	if len(layers) != 1 {
		return nil, fmt.Errorf("the image has %d layers, want 1", len(layers))
	}
	mt, err := layers[0].MediaType()
	if err != nil {
		return nil, err
	}
	if mt != types.OCILayer && mt != types.DockerLayer {
		return nil, fmt.Errorf("layer media type %s, want %s", mt, types.OCILayer)
	}
	rc, err := layers[0].Compressed()
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	zr, err := gzip.NewReader(rc)
	if err != nil {
		return nil, err
	}
	tr := tar.NewReader(zr)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return nil, fmt.Errorf("no %s in the layer", PluginFile)
		}
		if err != nil {
			return nil, err
		}
		if filepath.Base(h.Name) == PluginFile {
			return io.ReadAll(tr)
		}
	}
}
