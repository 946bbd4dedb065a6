package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	v1 "github.com/google/go-containerregistry/pkg/v1"

	"github.com/cloudg/mcp-privacy/internal/ociimage"
)

const imageUsage = `Usage:
  mcp-privacy image build [-o DIR] [--tag TAG] [WASM]
      pack WASM (default build/mcp-privacy.wasm) as an OCI image layout in DIR
      (default build/image), the form Istio's WasmPlugin and Envoy Gateway pull
  mcp-privacy image push [--layout DIR | --wasm WASM] [--insecure] REF
      push the image (default: the layout in build/image) to the registry
      reference REF (host/repository:tag), with the credentials of docker login
      (DOCKER_CONFIG); --insecure allows a plain-HTTP registry

Both print the manifest digest, the value a WasmPlugin's sha256 field pins.
`

func image(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, imageUsage)
		return 2
	}
	switch args[0] {
	case "build":
		return imageBuild(args[1:], stdout, stderr)
	case "push":
		return imagePush(args[1:], stdout, stderr)
	case "help", "-h", "--help":
		fmt.Fprint(stdout, imageUsage)
		return 0
	}
	fmt.Fprintf(stderr, "mcp-privacy image: unknown command %q\n\n%s", args[0], imageUsage)
	return 2
}

func imageFlags(name string, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet("image "+name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(fs.Output(), imageUsage) }
	return fs
}

func imageBuild(args []string, stdout, stderr io.Writer) int {
	fs := imageFlags("build", stderr)
	dir := fs.String("o", "build/image", "the OCI image layout to write")
	tag := fs.String("tag", "latest", "the tag the layout's index gives the image")
	if code, ok := parseImageFlags(fs, args, stdout); !ok {
		return code
	}
	if fs.NArg() > 1 {
		fs.Usage()
		return 2
	}
	wasm := "build/mcp-privacy.wasm"
	if fs.NArg() == 1 {
		wasm = fs.Arg(0)
	}
	img, err := imageOfModule(wasm)
	if err == nil {
		err = ociimage.WriteLayout(*dir, img, *tag)
	}
	if err != nil {
		fmt.Fprintf(stderr, "mcp-privacy image build: %v\n", err)
		return 1
	}
	d, _ := img.Digest()
	fmt.Fprintf(stdout, "wrote %s (%s, tag %s)\n", *dir, d, *tag)
	return 0
}

func imagePush(args []string, stdout, stderr io.Writer) int {
	fs := imageFlags("push", stderr)
	dir := fs.String("layout", "", "push the image of this OCI image layout (default build/image)")
	wasm := fs.String("wasm", "", "pack and push this .wasm instead of a layout")
	insecure := fs.Bool("insecure", false, "allow a plain-HTTP registry")
	if code, ok := parseImageFlags(fs, args, stdout); !ok {
		return code
	}
	if fs.NArg() != 1 || (*dir != "" && *wasm != "") {
		fs.Usage()
		return 2
	}
	ref := fs.Arg(0)
	var img v1.Image
	var err error
	if *wasm != "" {
		img, err = imageOfModule(*wasm)
	} else {
		if *dir == "" {
			*dir = "build/image"
		}
		if img, err = ociimage.FromLayout(*dir); err != nil {
			err = fmt.Errorf("%w (make image writes build/image)", err)
		}
	}
	var digest v1.Hash
	if err == nil {
		digest, err = ociimage.Push(ref, img, *insecure)
	}
	if err != nil {
		fmt.Fprintf(stderr, "mcp-privacy image push: %v\n", err)
		return 1
	}
	repo, _, _ := strings.Cut(ref, "@")
	if i := strings.LastIndex(repo, ":"); i > strings.LastIndex(repo, "/") {
		repo = repo[:i]
	}
	fmt.Fprintf(stdout, "pushed %s@%s\nWasmPlugin: url: oci://%s  sha256: %s\n", repo, digest, ref, digest.Hex)
	return 0
}

// parseImageFlags parses args; --help prints the usage and exits 0.
func parseImageFlags(fs *flag.FlagSet, args []string, stdout io.Writer) (code int, ok bool) {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprint(stdout, imageUsage)
			return 0, false
		}
		return 2, false
	}
	return 0, true
}

func imageOfModule(path string) (v1.Image, error) {
	wasm, err := os.ReadFile(path)
	if err != nil {
		if os.IsNotExist(err) {
			return nil, fmt.Errorf("%w (make wasm builds build/mcp-privacy.wasm)", err)
		}
		return nil, err
	}
	img, err := ociimage.Image(wasm, "mcp-privacy")
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return img, nil
}
