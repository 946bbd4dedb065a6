// A server on the TypeScript SDK v2 (@modelcontextprotocol/server with its
// Node adapter), for e2e/names_test.go: McpServer's tools and prompts,
// looked up by the name as sent, among them two named beyond ASCII:
// résumé, and ｄelete_customer, which reads as a denied name. Every call it serves is recorded; GET /calls lists them. It
// prints "LISTENING <port>".
import { createServer } from 'node:http';
import { toNodeHandler } from '@modelcontextprotocol/node';
import { createMcpHandler, McpServer } from '@modelcontextprotocol/server';
import * as z from 'zod';

const calls = [];
const handler = createMcpHandler(() => {
  const server = new McpServer({ name: 'ts-v2-names', version: '1.0.0' });
  for (const name of ['search_customers', 'delete_customer', 'ｄelete_customer', 'résumé']) {
    server.registerTool(name, { inputSchema: z.object({ marker: z.string() }) }, async ({ marker }) => {
      calls.push({ tool: name, marker });
      return { content: [{ type: 'text', text: `${name} done` }] };
    });
  }
  for (const name of ['summary', 'internal_notes']) {
    server.registerPrompt(name, { argsSchema: z.object({ marker: z.string() }) }, async ({ marker }) => {
      calls.push({ prompt: name, marker });
      return { messages: [{ role: 'user', content: { type: 'text', text: `${name} text` } }] };
    });
  }
  return server;
});
const nodeHandler = toNodeHandler(handler);
const http = createServer((req, res) => {
  if (req.method === 'GET' && req.url === '/calls') {
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify(calls));
    return;
  }
  nodeHandler(req, res);
});
http.listen(0, '127.0.0.1', () => console.log(`LISTENING ${http.address().port}`));
