// A TypeScript SDK v2 server (@modelcontextprotocol/server 2.4.0) with
// one resource template, customers://{id}/profile, whose handler answers
// any id with the whole profile, and a tool lookup that names the
// customer's address. The SDK reads {id} as [^/,]+ (UriTemplate.match),
// so customers://c-1@x/profile is an instance. GET /reads lists the URIs
// the template's handler ran for (e2e/uritemplate_test.go). It prints
// "LISTENING <port>".
import { createServer } from 'node:http';
import { toNodeHandler } from '@modelcontextprotocol/node';
import { createMcpHandler, McpServer, ResourceTemplate } from '@modelcontextprotocol/server';
import * as z from 'zod';

const reads = [];
const handler = toNodeHandler(
  createMcpHandler(() => {
    const server = new McpServer({ name: 'ts-v2-customers', version: '1.0.0' });
    server.registerTool('lookup', { inputSchema: z.object({}) }, async () => ({
      content: [{ type: 'text', text: 'alice@example.com' }],
    }));
    server.registerResource(
      'profile',
      new ResourceTemplate('customers://{id}/profile', { list: undefined }),
      { mimeType: 'text/plain' },
      async (uri, { id }) => {
        reads.push(uri.href);
        return { contents: [{ uri: uri.href, mimeType: 'text/plain', text: `profile of ${decodeURIComponent(id)}: plan pro` }] };
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
