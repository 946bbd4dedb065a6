// A TypeScript SDK v2 server (@modelcontextprotocol/server 2.4.0) whose
// resources a policy denies: static resources under https://, file: and
// http://127.0.0.1, and a template, customers://{id}/profile, that knows
// one customer, alice.martin@example.com, and answers any other id not
// found. The tool lookup names her address, and links her profile with it
// percent-encoded. McpServer looks a URI up as
// new URL(uri).toString(). GET /reads lists the URIs a handler ran for
// (e2e/urireadings_test.go). It prints "LISTENING <port>".
import { createServer } from 'node:http';
import { toNodeHandler } from '@modelcontextprotocol/node';
import { createMcpHandler, McpServer, ResourceTemplate } from '@modelcontextprotocol/server';
import * as z from 'zod';

const reads = [];
const statics = {
  'https://secret.example.com/payroll': 'payroll: salaries',
  'file:///etc/passwd': 'root:x:0:0',
  'http://127.0.0.1/admin': 'admin console',
};

const handler = toNodeHandler(
  createMcpHandler(() => {
    const server = new McpServer({ name: 'ts-v2-records', version: '1.0.0' });
    server.registerTool('lookup', { inputSchema: z.object({}) }, async () => ({
      content: [
        { type: 'text', text: 'alice.martin@example.com' },
        { type: 'resource_link', name: 'profile', uri: 'customers://alice.martin%40example.com/profile' },
      ],
    }));
    for (const [uri, text] of Object.entries(statics)) {
      server.registerResource(uri, uri, { mimeType: 'text/plain' }, async (u) => {
        reads.push(u.href);
        return { contents: [{ uri: u.href, mimeType: 'text/plain', text }] };
      });
    }
    server.registerResource(
      'profile',
      new ResourceTemplate('customers://{id}/profile', { list: undefined }),
      { mimeType: 'text/plain' },
      async (uri, { id }) => {
        reads.push(uri.href);
        if (id !== 'alice.martin@example.com') {
          throw new Error(`Customer ${id} not found`);
        }
        return { contents: [{ uri: uri.href, mimeType: 'text/plain', text: `profile of ${id}: plan pro` }] };
      },
    );
    return server;
  }),
);
const http = createServer((req, res) => {
  if (req.method === 'GET' && req.url === '/reads') {
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify(reads));
    return;
  }
  handler(req, res);
});
http.listen(0, '127.0.0.1', () => console.log(`LISTENING ${http.address().port}`));
