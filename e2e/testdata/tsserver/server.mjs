// A Streamable HTTP MCP server on the TypeScript SDK's own Express app
// (createMcpExpressApp, which parses bodies with express.json()), for
// e2e/requests_test.go. Stateless: every POST gets a fresh server. Tools
// search_customers and delete_customer record each call; GET /calls lists
// them. It prints "LISTENING <port>" once it listens on 127.0.0.1.
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError } from '@modelcontextprotocol/sdk/types.js';
import { serveStateless } from './stateless.mjs';

const calls = [];
const tools = ['search_customers', 'delete_customer'];

function newServer() {
  const server = new Server({ name: 'ts-e2e', version: '1.0.0' }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: tools.map((name) => ({ name, inputSchema: { type: 'object' } })),
  }));
  server.setRequestHandler(CallToolRequestSchema, async (req) => {
    const { name, arguments: args } = req.params;
    if (!tools.includes(name)) {
      throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${name}`);
    }
    calls.push({ name, arguments: args ?? {} });
    return { content: [{ type: 'text', text: `${name} done` }] };
  });
  return server;
}

serveStateless(newServer, { calls });
