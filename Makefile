# Make targets are the interface: CI and the README use these names.
GO        ?= go
FUZZTIME  ?= 30s
STATICCHECK ?= $(GO) run honnef.co/go/tools/cmd/staticcheck@v0.8.2
BUILD     := build

.PHONY: all build wasm image run test bench bench-wasm fuzz lint conformance clean

all: build

## build: the operator CLI into build/mcp-privacy, and the plugin (wasm)
build: wasm
	$(GO) build -o $(BUILD)/mcp-privacy ./cmd/mcp-privacy

## wasm: the plugin into build/mcp-privacy.wasm (standard Go, wasip1, with a
## patched copy of the proxy-wasm SDK, Go's jumps rewritten into direct
## branches by internal/wasmjump; see scripts/build-wasm.sh)
wasm:
	GO="$(GO)" BUILD="$(BUILD)" bash scripts/build-wasm.sh

## image: the plugin as an OCI image layout in build/image, the form Istio's
## WasmPlugin (oci://) and Envoy Gateway (code.type: Image) pull; push it
## with build/mcp-privacy image push REF (docs/DEPLOYMENT.md)
image: build
	$(BUILD)/mcp-privacy image build -o $(BUILD)/image $(BUILD)/mcp-privacy.wasm

## run: the plugin in front of the demo MCP server on 127.0.0.1:8080
run: build
	bash scripts/run-demo.sh

## test: formatting, vet, every test, and every test again with the race detector
test:
	@unformatted=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go' -not -path './build/*')); \
	  if [ -n "$$unformatted" ]; then echo "gofmt needed: $$unformatted"; exit 1; fi
	$(GO) vet ./...
	$(GO) test -count=1 -timeout 25m ./...
	$(GO) test -race -count=1 -timeout 25m ./...
	@# envoy/ is a module of its own (Envoy's, Istio's and Gateway's Go types
	@# are test-only): its configurations checked against their protos
	cd envoy && $(GO) vet ./... && $(GO) test -count=1 ./...
	@# every benchmark once: the checks a benchmark makes before its loop
	@# (what comes out is what it claims to measure) must keep holding
	$(GO) test -count=1 -run '^$$' -bench . -benchtime 1x ./...

## bench: every benchmark with allocation counts
bench:
	$(GO) test -run '^$$' -bench . -benchmem ./...

## bench-wasm: the benchmarks of the hot paths (plugin/mcp, transforms, the
## libraries they call per message) natively, in V8
## (Node 22's WASI) and in wazero, tabled into docs/BENCHMARKS.md
## (scripts/bench-wasm.sh; BENCH, BENCHTIME, COUNT, PKGS narrow it; BASE=commit
## adds that commit's figures, run alternately with these, and the speed-up;
## WASMJUMP=off measures the wasm test binaries without make wasm's jump
## rewrite, internal/wasmjump)
# $(value BENCH): the regexp as typed ('ToolsCall$|ToolsList500$' would
# otherwise lose its $| to make's expansion)
bench-wasm:
	GO="$(GO)" BENCH='$(value BENCH)' BENCHTIME="$(BENCHTIME)" COUNT="$(COUNT)" PKGS="$(PKGS)" BASE="$(BASE)" WASMJUMP="$(WASMJUMP)" bash scripts/bench-wasm.sh

.PHONY: count-wasm
## count-wasm: V8's instructions per op of the benchmarks in COUNTS
## ('./plugin/mcp:ToolsCall ./transforms:ScanPseudonymise/whole'), counted by
## valgrind's cachegrind, and with BASE=commit that commit's beside them
## (scripts/count-wasm.sh): a change of a few percent that timings on shared
## cores cannot show
count-wasm:
	GO="$(GO)" COUNTS="$(COUNTS)" BASE="$(BASE)" BUDGET="$(BUDGET)" WASMJUMP="$(WASMJUMP)" bash scripts/count-wasm.sh

.PHONY: wasm-size
## wasm-size: what the plugin's .wasm is made of: sections, and code per Go
## package (internal/tools/wasmsize), from a build that keeps the function
## names make wasm strips
wasm-size:
	GO="$(GO)" BUILD="$(BUILD)" WASM_LDFLAGS= bash scripts/build-wasm.sh $(BUILD)/mcp-privacy.names.wasm
	$(GO) run ./internal/tools/wasmsize $(BUILD)/mcp-privacy.names.wasm

## fuzz: each fuzz target for FUZZTIME (scripts/fuzz.sh)
fuzz:
	GO="$(GO)" FUZZTIME="$(FUZZTIME)" bash scripts/fuzz.sh

## lint: gofmt, go vet, staticcheck, and go.mod/go.sum tidy
lint:
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || { gofmt -l $$(git ls-files '*.go'); exit 1; }
	$(GO) vet ./...
	$(STATICCHECK) ./...
	$(GO) mod tidy -diff
	cd envoy && $(GO) vet ./... && $(STATICCHECK) ./... && $(GO) mod tidy -diff

## conformance: the MCP conformance server suite against the go-sdk's
## everything-server, directly and through the plugin (allow-all policy), at
## 2025-11-25 (suite 0.1.16, stateful server) and 2026-07-28 (suite
## 0.2.0-alpha.12 --requirements 2026-07-28, stateless server); every
## scenario's result must be identical (scripts/conformance.sh)
conformance: build
	GO="$(GO)" BUILD="$(BUILD)" bash scripts/conformance.sh

clean:
	rm -rf $(BUILD)
