// A TypeScript SDK v1 server (@modelcontextprotocol/sdk 1.32.2, stateless
// over Express) with one resource template, customers://{id}/profile,
// whose handler answers any id with the whole profile, and a tool lookup
// that names the customer's address. The SDK reads {id} as [^/,]+
// (shared/uriTemplate.js), so customers://c-1@x/profile is an instance.
// GET /reads lists the URIs the template's handler ran for
// (e2e/uritemplate_test.go). It prints "LISTENING <port>".
import { McpServer, ResourceTemplate } from '@modelcontextprotocol/sdk/server/mcp.js';
import { serveStateless } from './stateless.mjs';

const reads = [];

function newServer() {
  const server = new McpServer({ name: 'ts-v1-customers', version: '1.0.0' });
  server.registerTool('lookup', {}, async () => ({ content: [{ type: 'text', text: 'alice@example.com' }] }));
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
}

serveStateless(newServer, { reads });
