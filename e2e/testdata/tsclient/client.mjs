// A TypeScript SDK client (@modelcontextprotocol/sdk's
// StreamableHTTPClientTransport) that sends one tools/call to
// process.argv[2] and prints everything it hands to its application: each
// message, each error, the error send throws, each resumption token.
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

const t = new StreamableHTTPClientTransport(new URL(process.argv[2]), {
  requestInit: { headers: { 'x-mcp-principal': 'ann' } },
  reconnectionOptions: { maxRetries: 0, initialReconnectionDelay: 10, maxReconnectionDelay: 10, reconnectionDelayGrowFactor: 1 },
});
t.onmessage = (m) => console.log('MESSAGE ' + JSON.stringify(m));
t.onerror = (e) => console.log('ERROR ' + (e && e.message));
await t.start();
try {
  await t.send({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'search', arguments: {} } }, {
    onresumptiontoken: (id) => console.log('TOKEN ' + id),
  });
} catch (e) {
  console.log('THROWN ' + (e && e.message));
}
await new Promise((r) => setTimeout(r, 300));
await t.close();
console.log('DONE');
