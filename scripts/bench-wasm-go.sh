#!/usr/bin/env bash
# Runs Go benchmarks compiled to wasip1 under wazero: the plugin's Go code
# in the VM without the proxy-wasm host around it, to see what each piece
# costs there (typically 6-17x native). Usage:
#   scripts/bench-wasm-go.sh [go test args...]
#   e.g. scripts/bench-wasm-go.sh -bench 'ToolsCall|Decide' -benchmem ./plugin/mcp/ ./policy/
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p build/bin
[ -x build/bin/wazero ] || go build -o build/bin/wazero github.com/tetratelabs/wazero/cmd/wazero
export PATH="$PWD/build/bin:$(go env GOROOT)/lib/wasm:$PATH"
GOOS=wasip1 GOARCH=wasm GOWASIRUNTIME=wazero exec go test -run '^$' "$@"
