// A Streamable HTTP MCP server on the TypeScript SDK's own Express app
// (createMcpExpressApp, which parses bodies with express.json()), for
// e2e/requests_test.go. Stateless: every POST gets a fresh server. Tools
// search_customers and delete_customer record each call; GET /calls lists
// them. It prints "LISTENING <port>" once it listens on 127.0.0.1.
import { createMcpExpressApp } from '@modelcontextprotocol/sdk/server/express.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError } from '@modelcontextprotocol/sdk/types.js';

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

const app = createMcpExpressApp();
app.post('/mcp', async (req, res) => {
  const server = newServer();
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  res.on('close', () => {
    transport.close();
    server.close();
  });
  await server.connect(transport);
  await transport.handleRequest(req, res, req.body);
});
app.get('/calls', (req, res) => res.json(calls));
const listener = app.listen(0, '127.0.0.1', () => {
  console.log(`LISTENING ${listener.address().port}`);
});
