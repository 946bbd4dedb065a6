#!/usr/bin/env bash
# make run: the plugin (build/mcp-privacy.wasm under the Envoy-like host of
# `mcp-privacy serve`) in front of the demo MCP server, with the demo policy.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
UPSTREAM=${UPSTREAM:-127.0.0.1:3000}
LISTEN=${LISTEN:-127.0.0.1:8080}
POLICY=${POLICY:-testdata/policies/demo.yaml}

go build -o "$BUILD/mcp-demo-server" ./cmd/mcp-demo-server
"$BUILD/mcp-demo-server" -listen "$UPSTREAM" -stateless &
demo=$!
"$BUILD/mcp-privacy" serve --policy "$POLICY" --upstream "http://$UPSTREAM" --listen "$LISTEN" --wasm "$BUILD/mcp-privacy.wasm" &
proxy=$!
trap 'kill $demo $proxy 2>/dev/null || true' EXIT

# What to try is printed once the endpoint answers, not before.
host=${LISTEN%:*} port=${LISTEN##*:}
until (exec 3<>"/dev/tcp/$host/$port") 2>/dev/null; do
  kill -0 $proxy 2>/dev/null || { wait $proxy; exit $?; }
  sleep 0.1
done

cat <<MSG

  MCP endpoint:  http://$LISTEN/mcp   (policy: $POLICY)
  Upstream:      http://$UPSTREAM/mcp (the demo server, unfiltered, stateless so curl needs no handshake)

  Try, in another terminal:
    curl -s http://$LISTEN/mcp -H 'content-type: application/json' \\
      -H 'accept: application/json, text/event-stream' -H 'x-mcp-principal: ann' -H 'x-mcp-roles: support' \\
      -d '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"delete_customer","arguments":{"id":"c-1"}}}'
    -> event: message
       data: {"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"unknown tool \\"delete_customer\\""}}
       (the server's own answer for a tool it does not have: hidden looks missing)
    (with x-mcp-roles: admin the call goes through)

    curl -s http://$LISTEN/mcp -H 'content-type: application/json' \\
      -H 'accept: application/json, text/event-stream' -H 'x-mcp-principal: ann' -H 'x-mcp-roles: support' \\
      -d '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"get_customer","arguments":{"id":"c-1"}}}'
    -> the record with PERSON_…, EMAIL_…, PHONE_… and CREDIT_CARD_… pseudonyms; send one back in
       arguments (e.g. to echo) and the server receives the real value

    build/mcp-privacy explain --policy $POLICY --principal ann --roles support --tool delete_customer

  Or point any MCP client (e.g. npx @modelcontextprotocol/inspector) at the endpoint.
  Ctrl-C stops both.

MSG
wait $proxy
