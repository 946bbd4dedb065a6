#!/usr/bin/env bash
# Builds the plugin as a proxy-wasm module with the standard Go toolchain:
#   GOOS=wasip1 GOARCH=wasm go build -buildmode=c-shared ./plugin
#
# The SDK (github.com/tetratelabs/proxy-wasm-go-sdk v0.24.0) targets TinyGo:
# its callbacks use TinyGo's //export and, under the standard compiler, its
# host calls go to a test mock. So the SDK module is copied into the build
# directory, the mock is replaced by plugin/_sdkpatch/*.go (//go:wasmimport
# host calls, //go:wasmexport callbacks), and the build uses a generated
# copy of go.mod (-modfile) that replaces the SDK with the copy. go.mod, the
# module cache and native builds/tests are untouched.
# Why: docs/RATIONALE.md, "Building the .wasm".
#
# Usage: scripts/build-wasm.sh [output]   (default build/mcp-privacy.wasm;
#        relative paths are relative to the repository root)
# Env:   GO (go command, default go), BUILD (build directory, default build),
#        TAGS (extra build tags, e.g. mcpprivacy_testhooks for the harness's
#        failure-injection build), WASMJUMP (off: leave Go's jumps as the
#        compiler wrote them, see below), WASM_LDFLAGS (linker flags, default -s: no
#        name section, which only engines' trap traces read; Go's own
#        tracebacks come from its function table, which stays. make
#        wasm-size builds with WASM_LDFLAGS= to name what is in the module)
set -euo pipefail
cd "$(dirname "$0")/.."

GO=${GO:-go}
BUILD=${BUILD:-build}
OUT=${1:-$BUILD/mcp-privacy.wasm}
SDK=github.com/tetratelabs/proxy-wasm-go-sdk
SDK_VERSION=v0.24.0 # the version plugin/_sdkpatch was written against
PATCH=plugin/_sdkpatch

# Settings of the caller (GOFLAGS=-race, GOOS, CGO_ENABLED, a go.work...)
# must not leak into this build; everything it needs is set explicitly.
unset GOOS GOARCH GOFLAGS GOEXPERIMENT CGO_ENABLED
export GOWORK=off

die() { echo "build-wasm: $*" >&2; exit 1; }

mkdir -p "$BUILD"
# Concurrent builds (test packages run in parallel, each may build the
# plugin) take turns: one replacing build/sdk while another compiles
# against it fails the other ("cannot find module providing package").
if command -v flock >/dev/null; then
  exec 9>"$BUILD/.build-wasm.lock"
  flock 9
fi
tmpfiles=()
trap 'rm -rf ${tmpfiles[@]+"${tmpfiles[@]}"}' EXIT

# The generated go.mod/go.sum. Everything below reads the module graph
# through it, so nothing (not even go mod download adding a checksum) ever
# writes the real go.mod or go.sum. go derives the .sum name from the .mod
# name, which must end in .mod.
mod=$BUILD/wasm.$$.mod
tmpfiles+=("$mod" "${mod%.mod}.sum")
cp go.mod "$mod"
cp go.sum "${mod%.mod}.sum"

version=$("$GO" list -modfile="$mod" -m -f '{{.Version}}' "$SDK")
[ "$version" = "$SDK_VERSION" ] ||
  die "go.mod has $SDK $version but $PATCH was written against $SDK_VERSION; port $PATCH (and this check) first"
"$GO" mod download -modfile="$mod" "$SDK" # a clean clone may not have it in the module cache yet
src=$("$GO" list -modfile="$mod" -m -f '{{.Dir}}' "$SDK")
[ -n "$src" ] && [ -f "$src/proxywasm/internal/abi_hostcalls_mock.go" ] ||
  die "unexpected SDK layout at '$src'"

# Every callback the SDK marks with TinyGo's //export must be exported by
# our patch too (the ABI marker is exported under its 0.2.1 name).
for name in $(sed -n 's|^//export \(proxy_.*\)|\1|p' "$src"/proxywasm/internal/abi_callback_*.go); do
  case $name in proxy_abi_version_*) name=proxy_abi_version_0_2_1 ;; esac
  grep -q "^//go:wasmexport $name\$" "$PATCH/wasmexport_callbacks.go" ||
    die "the SDK defines callback $name but $PATCH/wasmexport_callbacks.go does not export it"
done

# The patched copy, rebuilt only when the SDK or the patch changed, so that
# repeated (or concurrent) runs leave a finished copy alone.
sdk=$BUILD/sdk
stamp=$(printf '%s\n' "$src" "$PATCH"/*.go)
fresh() {
  [ -f "$sdk/.stamp" ] && [ "$(cat "$sdk/.stamp")" = "$stamp" ] || return 1
  for f in "$PATCH"/*.go; do
    cmp -s "$f" "$sdk/proxywasm/internal/$(basename "$f")" || return 1
  done
}
if ! fresh; then
  tmp=$(mktemp -d "$BUILD/sdk.tmp.XXXXXX")
  tmpfiles+=("$tmp")
  cp -R "$src/." "$tmp/"
  chmod -R u+w,go+rX "$tmp"
  rm "$tmp/proxywasm/internal/abi_hostcalls_mock.go"
  cp "$PATCH"/*.go "$tmp/proxywasm/internal/"
  printf '%s\n' "$stamp" >"$tmp/.stamp"
  rm -rf "$sdk"
  mv "$tmp" "$sdk"
fi

# Replace the SDK with the copy. A relative replacement path in a -modfile
# is resolved against the main module's root (the directory of go.mod), not
# against the directory of the -modfile: hence ./build/sdk, not ./sdk.
case $sdk in
  /*) replacement=$sdk ;;
  *) replacement=./$sdk ;;
esac
"$GO" mod edit -replace="$SDK=$replacement" "$mod"
mv "${mod%.mod}.sum" "$BUILD/wasm.sum"
mv "$mod" "$BUILD/wasm.mod"

mkdir -p "$(dirname "$OUT")"
tmpfiles+=("$OUT.$$")
# Go's jumps between basic blocks all go through a dispatch loop at the
# top of each function; internal/wasmjump makes them direct branches and
# the loops wasm loops of their own (the same program, faster in V8 and
# wazero; docs/RATIONALE.md, "Go's jumps are made direct").
# WASMJUMP=off builds the module as the compiler wrote it. The rewrite
# reads the function names (which calls never return), so the default -s
# (no name section) is applied by it, after reading them.
ldflags=${WASM_LDFLAGS--s}
strip=()
if [ "${WASMJUMP:-on}" != off ] && [ "$ldflags" = -s ]; then
  ldflags=
  strip=(-strip-names)
fi
GOOS=wasip1 GOARCH=wasm CGO_ENABLED=0 "$GO" build \
  -modfile="$BUILD/wasm.mod" -mod=readonly -buildmode=c-shared -trimpath -buildvcs=false \
  -tags="${TAGS:-}" -ldflags="$ldflags" -o "$OUT.$$" ./plugin
if [ "${WASMJUMP:-on}" != off ]; then
  "$GO" run ./internal/tools/wasmjump ${strip[@]+"${strip[@]}"} "$OUT.$$" "$OUT.$$"
fi
mv "$OUT.$$" "$OUT"
size=$(wc -c <"$OUT" | tr -d ' ')
echo "build-wasm: $OUT ($size bytes)"
# The product's size budget (docs/BENCHMARKS.md: at most 10 MB, 10,000,000
# bytes): the plugin as shipped (no test tags, stripped, rewritten) fails
# to build over it, so growth is paid for in the change that makes it.
WASM_MAX_BYTES=${WASM_MAX_BYTES:-10000000}
if [ -z "${TAGS:-}" ] && [ -z "${WASM_LDFLAGS+x}" ] && [ "${WASMJUMP:-on}" != off ] && [ "$size" -gt "$WASM_MAX_BYTES" ]; then
  echo "build-wasm: $OUT is $size bytes, over the budget of $WASM_MAX_BYTES" >&2
  rm -f "$OUT"
  exit 1
fi
