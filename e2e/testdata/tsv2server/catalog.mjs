// A server on the TypeScript SDK v2's McpServer (@modelcontextprotocol/server
// with its Node adapter) with two of each primitive kind, one of each
// hidden by e2e/hidden_test.go's policy: tools search_customers and
// delete_customer, prompts greet and summarize_customer, static resources
// docs://guide and docs://readme, templates orders://{id}/status and
// customers://{id}/profile, whose ids complete. createMcpHandler serves
// 2026-07-28 requests and, through its stateless fallback, the 2025
// revisions. It prints "LISTENING <port>".
import { createServer } from 'node:http';
import { toNodeHandler } from '@modelcontextprotocol/node';
import { completable, createMcpHandler, McpServer, ResourceTemplate } from '@modelcontextprotocol/server';
import * as z from 'zod';

const ids = (value) => ['c-1', 'c-2'].filter((id) => id.startsWith(value));

const handler = createMcpHandler(() => {
  const server = new McpServer({ name: 'ts-v2-catalog', version: '1.0.0' });
  for (const name of ['search_customers', 'delete_customer']) {
    server.registerTool(name, { inputSchema: z.object({ id: z.string() }) }, async ({ id }) => ({
      content: [{ type: 'text', text: `${name} ${id}` }],
    }));
  }
  for (const name of ['greet', 'summarize_customer']) {
    server.registerPrompt(name, { argsSchema: z.object({ id: completable(z.string(), ids) }) }, async ({ id }) => ({
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
});
const http = createServer(toNodeHandler(handler));
http.listen(0, '127.0.0.1', () => console.log(`LISTENING ${http.address().port}`));
