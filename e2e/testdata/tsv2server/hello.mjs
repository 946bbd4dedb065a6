// The smallest server on the TypeScript SDK v2 (@modelcontextprotocol/server
// with its Node adapter): createMcpHandler serves 2026-07-28 requests and,
// through its stateless fallback, the 2025 revisions. A check that the
// install works (TestTSV2ServerAnswers). It prints "LISTENING <port>".
import { createServer } from 'node:http';
import { toNodeHandler } from '@modelcontextprotocol/node';
import { createMcpHandler, McpServer } from '@modelcontextprotocol/server';
import * as z from 'zod';

const handler = createMcpHandler(() => {
  const server = new McpServer({ name: 'ts-v2-hello', version: '1.0.0' });
  server.registerTool('hello', { inputSchema: z.object({ who: z.string() }) }, async ({ who }) => ({
    content: [{ type: 'text', text: `hello ${who}` }],
  }));
  return server;
});
const http = createServer(toNodeHandler(handler));
http.listen(0, '127.0.0.1', () => console.log(`LISTENING ${http.address().port}`));
