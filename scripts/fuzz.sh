#!/usr/bin/env bash
# make fuzz: every fuzz target of every package for FUZZTIME.
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
for pkg in $($GO list ./...); do
  for target in $($GO test -list '^Fuzz' "$pkg" | grep '^Fuzz' || true); do
    for attempt in 1 2 3; do
      echo "fuzz $pkg $target ($FUZZTIME)"
      if out=$($GO test -run '^$' -fuzz "^$target\$" -fuzztime "$FUZZTIME" -fuzzminimizetime 5s "$pkg" 2>&1); then
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
