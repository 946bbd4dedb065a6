#!/usr/bin/env bash
# make fuzz: every fuzz target of every package for FUZZTIME.
#
# Each package's instrumented test binary is built once (go test -c
# -fuzz) and runs each of its targets in turn: building it per target,
# as `go test -fuzz` does, took a link per target (75 of them), and
# listing the targets with `go test -list` a build per package; the
# targets are found in the test files instead.
#
# Go's fuzzing coordinator sometimes fails a run with "context deadline
# exceeded" when a worker is slow to stop on a loaded machine: no input
# failed and no crasher was written. Such a run is retried, up to three
# runs in all (on CI's two cores the same target has timed out twice in a
# row); any other failure (a crasher, a panic, a third timeout) fails the
# target.
set -euo pipefail
cd "$(dirname "$0")/.."
GO=${GO:-go}
FUZZTIME=${FUZZTIME:-30s}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for pkg in $($GO list ./...); do
  dir=$($GO list -f '{{.Dir}}' "$pkg")
  targets=$(cat "$dir"/*_test.go 2>/dev/null | sed -n 's/^func \(Fuzz[A-Za-z0-9_]*\)(.*/\1/p' || true)
  [ -n "$targets" ] || continue
  bin=$work/$(echo "$pkg" | tr / _).test
  # Every target of the package in one pattern: the binary is built with
  # the coverage instrumentation that fuzzing needs.
  $GO test -c -o "$bin" -fuzz "^($(echo $targets | tr ' ' '|'))\$" "$pkg"
  for target in $targets; do
    for attempt in 1 2 3; do
      echo "fuzz $pkg $target ($FUZZTIME)"
      # As go test runs it: in the package's directory (its testdata,
      # where a failing input is written), with a cache of its own.
      if out=$(cd "$dir" && "$bin" -test.run '^$' -test.fuzz "^$target\$" -test.fuzztime "$FUZZTIME" \
        -test.fuzzminimizetime 5s -test.fuzzcachedir "$work/cache/$pkg/$target" 2>&1); then
        tail -n 2 <<<"$out"
        break
      fi
      echo "$out"
      if [ "$attempt" != 3 ] && grep -q 'context deadline exceeded' <<<"$out" && ! grep -q 'Failing input written' <<<"$out"; then
        echo "retrying $target: the fuzzing engine timed out stopping a worker, no input failed"
        continue
      fi
      exit 1
    done
  done
done
