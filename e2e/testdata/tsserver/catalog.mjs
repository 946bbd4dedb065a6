// A server on the TypeScript SDK v1's McpServer (@modelcontextprotocol/sdk,
// on its own Express app) with two of each primitive kind, one of each
// hidden by e2e/hidden_test.go's policy: tools search_customers and
// delete_customer, prompts greet and summarize_customer, static resources
// docs://guide and docs://readme, templates orders://{id}/status and
// customers://{id}/profile, whose ids complete. Sessions, as 2025 clients
// use them: an initialize makes one, with a server of its own. McpServer
// answers a tool it does not have with a result (isError: true, "Tool
// <name> not found"), everything else it does not have with an error. It
// prints "LISTENING <port>".
import { randomUUID } from 'node:crypto';
import { completable } from '@modelcontextprotocol/sdk/server/completable.js';
import { createMcpExpressApp } from '@modelcontextprotocol/sdk/server/express.js';
import { McpServer, ResourceTemplate } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import * as z from 'zod';

const ids = (value) => ['c-1', 'c-2'].filter((id) => id.startsWith(value));

function newServer() {
  const server = new McpServer({ name: 'ts-v1-catalog', version: '1.0.0' });
  for (const name of ['search_customers', 'delete_customer']) {
    server.registerTool(name, { inputSchema: { id: z.string() } }, async ({ id }) => ({
      content: [{ type: 'text', text: `${name} ${id}` }],
    }));
  }
  for (const name of ['greet', 'summarize_customer']) {
    server.registerPrompt(name, { argsSchema: { id: completable(z.string(), ids) } }, async ({ id }) => ({
      messages: [{ role: 'user', content: { type: 'text', text: `${name} ${id}` } }],
    }));
  }
  for (const uri of ['docs://guide', 'docs://readme']) {
    server.registerResource(uri, uri, { mimeType: 'text/plain' }, async (u) => ({
      contents: [{ uri: u.href, text: `the text of ${u.href}` }],
    }));
  }
  for (const [name, template] of [['orders', 'orders://{id}/status'], ['customers', 'customers://{id}/profile']]) {
    server.registerResource(name, new ResourceTemplate(template, { list: undefined, complete: { id: ids } }), { mimeType: 'text/plain' },
      async (u) => ({ contents: [{ uri: u.href, text: `the text of ${u.href}` }] }));
  }
  return server;
}

const transports = {};
const app = createMcpExpressApp();
app.post('/mcp', async (req, res) => {
  const id = req.headers['mcp-session-id'];
  let transport = id && transports[id];
  if (!transport) {
    if (id || !isInitializeRequest(req.body)) {
      res.status(400).json({ jsonrpc: '2.0', error: { code: -32000, message: 'Bad Request: no valid session' }, id: null });
      return;
    }
    transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (sid) => {
        transports[sid] = transport;
      },
    });
    await newServer().connect(transport);
  }
  await transport.handleRequest(req, res, req.body);
});
const listener = app.listen(0, '127.0.0.1', () => {
  console.log(`LISTENING ${listener.address().port}`);
});
