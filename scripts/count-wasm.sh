#!/usr/bin/env bash
# make count-wasm: V8's instructions per op of chosen benchmarks, counted
# by valgrind's cachegrind, for this tree and, with BASE, for a commit to
# compare with. A count does not depend on what else runs on the machine,
# where a timing on two shared cores moves by ±20%: use it to show that
# a change moved a hot path by a few percent, and make bench-wasm for the
# times themselves. Each benchmark gets two counts: every instruction of
# the process, and the module's own (V8's compiled code and the memory
# copies and fills it calls out for), which leaves V8's compiler and
# runtime out and repeats far more closely from run to run.
#
#   COUNTS  the benchmarks, as package:name, separated by spaces, e.g.
#           './plugin/mcp:ToolsCall ./transforms:ScanPseudonymise/whole'
#           (the name without its Benchmark prefix; a sub-benchmark after /)
#   BASE    a commit to compare with (default none)
#   BUDGET  native time of the ops counted per benchmark (default 100ms;
#           under valgrind V8 runs this code some 700x slower). Go's
#           collector runs every few MB allocated: the ops counted must
#           span many of its cycles, or a count has one more or one less
#           (541 ToolsCall ops counted 60k instructions an op, 2000 115k)
#
# How: Node runs the package's wasip1 test binary (as make bench-wasm
# builds it) with Envoy's V8 flags, single-threaded, under cachegrind,
# twice: with -test.benchtime Nx and 2Nx. Both processes compile the same
# module and run the same set-up, so the difference of their instruction
# counts, divided by N, is the cost of one op (and its share of the
# garbage collector). N comes from the benchmark's native time and
# BUDGET, the same for both sides. Runs go two at a time.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD

NODE_VERSION=22.23.5
GO="${GO:-go}"
COUNTS="${COUNTS:?count-wasm: COUNTS is needed, e.g. COUNTS=./plugin/mcp:ToolsCall}"
BASE="${BASE:-}"
BUDGET="${BUDGET:-100ms}"
OUT=build/count
TOOL=count-wasm
command -v valgrind >/dev/null 2>&1 || { echo "count-wasm: valgrind is needed (apt-get install valgrind)" >&2; exit 1; }
PKGS=$(for c in $COUNTS; do echo "${c%%:*}"; done | sort -u | tr '\n' ' ')

source scripts/wasm-testbins.sh

budget_ns=$(awk -v d="$BUDGET" 'BEGIN {
  unit["ns"] = 1; unit["us"] = 1e3; unit["ms"] = 1e6; unit["s"] = 1e9
  if (match(d, /^[0-9.]+/) && (substr(d, RLENGTH + 1) in unit)) printf "%d", substr(d, 1, RLENGTH) * unit[substr(d, RLENGTH + 1)]
}')
[[ ${budget_ns:-0} -gt 0 ]] || { echo "count-wasm: BUDGET is not a duration (ns, us, ms, s): $BUDGET" >&2; exit 1; }

# pattern NAME: the -test.bench pattern of one benchmark, a level per '/'.
pattern() {
  local out="" part parts
  IFS=/ read -r -a parts <<<"Benchmark$1"
  for part in "${parts[@]}"; do out+="${out:+/}^${part}\$"; done
  echo "$out"
}

# instructions SIDE PKG NAME N: cachegrind's instruction count of one run.
instructions() {
  local side=$1 pkg=$2 name=$3 n=$4 bin dir log
  bin=$ROOT/$OUT/$(echo "${pkg#./}" | tr / -).$side.wasm
  dir=${tree[$side]}/${pkg#./}
  log=$ROOT/$OUT/$(echo "${pkg#./}:$name" | tr /: --).$side.$n.log
  (cd "$dir" && PWD="$dir" valgrind --tool=cachegrind --cache-sim=no --cachegrind-out-file="$log.cg" \
    "$NODE" --no-warnings "${V8_FLAGS[@]}" --single-threaded "$ROOT/scripts/run-wasi.mjs" "$bin" \
    -test.run '^$' -test.bench "$(pattern "$name")" -test.benchtime "${n}x" -test.count 1) >"$log" 2>&1 ||
    { echo "count-wasm: $side $pkg $name ${n}x failed: see $log" >&2; return 1; }
  grep -q '^Benchmark' "$log" || { echo "count-wasm: $side $pkg $name ran no benchmark: see $log" >&2; return 1; }
  # Two counts: every instruction, and the module's own: V8's compiled
  # code (cachegrind knows no file or function for it: "???") and the
  # memory.copy and memory.fill it calls out for. The second leaves out V8
  # compiling the module and the rest of its runtime, and so repeats
  # within a few hundred instructions an op where the first moves by
  # thousands.
  awk '/I +refs:/ { gsub(",", "", $NF); printf "%s ", $NF }' "$log"
  awk '/^fl=/ { fl = substr($0, 4) } /^fn=/ { fn = substr($0, 4) }
    /^[0-9]/ && (fl == "???" && fn == "???" || fn ~ /memory_(copy|fill)_wrapper|^__mem(cpy|move|set)_/) { own += $2 }
    END { printf "%.0f\n", own }' "$log.cg"
  rm -f "$log.cg"
}

declare -A per_op per_op_jit iters
jobs_file=$ROOT/$OUT/jobs
: >"$jobs_file"
for c in $COUNTS; do
  pkg=${c%%:*} name=${c#*:}
  native=$ROOT/$OUT/$(echo "${pkg#./}" | tr / -).head.native
  ns=$(cd "${tree[head]}/${pkg#./}" && "$native" -test.run '^$' -test.bench "$(pattern "$name")" -test.benchtime 300ms -test.count 1 |
    awk '$1 ~ /^Benchmark/ && $4 == "ns/op" { print int($3); exit }')
  [[ -n $ns && $ns -gt 0 ]] || { echo "count-wasm: $c: no native figure" >&2; exit 1; }
  n=$(((budget_ns + ns - 1) / ns))
  ((n >= 10)) || n=10
  iters[$c]=$n
  for side in "${sides[@]}"; do
    echo "$side $pkg $name $n" >>"$jobs_file"
    echo "$side $pkg $name $((2 * n))" >>"$jobs_file"
  done
done
echo "count-wasm: $(wc -l <"$jobs_file") runs under valgrind, two at a time"
running=0 failed=0
while read -r side pkg name n; do
  {
    c=$(instructions "$side" "$pkg" "$name" "$n")
    echo "$c" >"$ROOT/$OUT/$(echo "${pkg#./}:$name" | tr /: --).$side.$n.count"
    echo "count-wasm: $side $pkg $name ${n}x: ${c% *} instructions, ${c#* } the module's own"
  } &
  if ((++running >= 2)); then
    wait -n || failed=1
    ((running--))
  fi
done <"$jobs_file"
while ((running-- > 0)); do wait -n || failed=1; done
((failed == 0)) || exit 1

for c in $COUNTS; do
  pkg=${c%%:*} name=${c#*:} n=${iters[$c]}
  for side in "${sides[@]}"; do
    stem=$ROOT/$OUT/$(echo "${pkg#./}:$name" | tr /: --).$side
    read -r one one_jit <"$stem.$n.count"
    read -r two two_jit <"$stem.$((2 * n)).count"
    per_op[$c.$side]=$(((two - one) / n))
    per_op_jit[$c.$side]=$(((two_jit - one_jit) / n))
  done
done

{
  if [[ -n "$BASE" ]]; then
    echo "V8 instructions per op (cachegrind; Node $NODE_VERSION, ${V8_FLAGS[*]}): before is $(git rev-parse --short "$base_rev"), after is $head_rev"
    echo
    echo "| benchmark | ops counted | before | after | after / before | module's own: before | after | after / before |"
    echo "|---|---|---|---|---|---|---|---|"
    for c in $COUNTS; do
      b=${per_op[$c.base]} h=${per_op[$c.head]} bj=${per_op_jit[$c.base]} hj=${per_op_jit[$c.head]}
      printf '| %s | %d | %d | %d | %s | %d | %d | %s |\n' "$c" "${iters[$c]}" "$b" "$h" "$(awk -v b="$b" -v h="$h" 'BEGIN { printf "%.3f", h / b }')" \
        "$bj" "$hj" "$(awk -v b="$bj" -v h="$hj" 'BEGIN { printf "%.3f", h / b }')"
    done
  else
    echo "V8 instructions per op (cachegrind; Node $NODE_VERSION, ${V8_FLAGS[*]}) at $head_rev"
    echo
    echo "| benchmark | ops counted | instructions per op | module's own |"
    echo "|---|---|---|---|"
    for c in $COUNTS; do
      printf '| %s | %d | %d | %d |\n' "$c" "${iters[$c]}" "${per_op[$c.head]}" "${per_op_jit[$c.head]}"
    done
  fi
} | tee "$OUT/table.md"
