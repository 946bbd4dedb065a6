// Serves MCP on the TypeScript SDK v1's own Express app
// (createMcpExpressApp, which parses bodies with express.json()),
// stateless: every POST /mcp gets a fresh server from newServer. GET
// /<name> answers with log[name] as JSON, the record a test reads. It
// prints "LISTENING <port>" once it listens on 127.0.0.1.
import { createMcpExpressApp } from '@modelcontextprotocol/sdk/server/express.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';

export function serveStateless(newServer, log) {
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
  for (const [name, records] of Object.entries(log)) {
    app.get(`/${name}`, (req, res) => res.json(records));
  }
  const listener = app.listen(0, '127.0.0.1', () => {
    console.log(`LISTENING ${listener.address().port}`);
  });
}
