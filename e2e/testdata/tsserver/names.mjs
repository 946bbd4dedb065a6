// A Streamable HTTP MCP server on the TypeScript SDK v1's low-level Server
// and its own Express app, for e2e/names_test.go and names_rules_test.go. With the argument
// "normalise" it is a lenient server that looks tool and prompt names up
// after name.normalize('NFKC').toLowerCase(), as servers that forgive a
// client's spelling do: ｄelete_customer, delete＿customer or \u212Aill_session
// (Kelvin sign) run delete_customer or kill_session; export_customers
// answers a record with a salary. Without it, names are
// looked up as sent, as the SDK's McpServer does. Every tool call, prompt
// and completion it serves is recorded; GET /calls lists them. Stateless:
// every POST gets a fresh server. It prints "LISTENING <port>".
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema, CompleteRequestSchema, ErrorCode, GetPromptRequestSchema, ListPromptsRequestSchema,
  ListToolsRequestSchema, McpError,
} from '@modelcontextprotocol/sdk/types.js';
import { serveStateless } from './stateless.mjs';

const normalise = process.argv[2] === 'normalise';
const lookUp = (name) => (normalise ? name.normalize('NFKC').toLowerCase() : name);
const calls = [];
const tools = ['search_customers', 'delete_customer', 'kill_session', 'shred_files', 'export_customers'];
const prompts = ['summary', 'internal_notes'];

function newServer() {
  const server = new Server({ name: 'ts-names', version: '1.0.0' }, { capabilities: { tools: {}, prompts: {}, completions: {} } });
  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: tools.map((name) => ({ name, inputSchema: { type: 'object' } })),
  }));
  server.setRequestHandler(CallToolRequestSchema, async (req) => {
    const { name, arguments: args } = req.params;
    const tool = lookUp(name);
    if (!tools.includes(tool)) {
      throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${name}`);
    }
    calls.push({ tool, sent: name, arguments: args ?? {} });
    if (tool === 'export_customers') {
      // A record with a salary, which a policy's project step drops.
      const record = { name: 'c-1', salary: 91000 };
      return { content: [{ type: 'text', text: JSON.stringify(record) }], structuredContent: record };
    }
    return { content: [{ type: 'text', text: `${tool} done` }] };
  });
  server.setRequestHandler(ListPromptsRequestSchema, async () => ({ prompts: prompts.map((name) => ({ name })) }));
  server.setRequestHandler(GetPromptRequestSchema, async (req) => {
    const { name, arguments: args } = req.params;
    const prompt = lookUp(name);
    if (!prompts.includes(prompt)) {
      throw new McpError(ErrorCode.InvalidParams, `Unknown prompt: ${name}`);
    }
    calls.push({ prompt, sent: name, arguments: args ?? {} });
    return { messages: [{ role: 'user', content: { type: 'text', text: `${prompt} text` } }] };
  });
  server.setRequestHandler(CompleteRequestSchema, async (req) => {
    const { ref, argument } = req.params;
    const prompt = lookUp(ref.name ?? '');
    if (ref.type !== 'ref/prompt' || !prompts.includes(prompt)) {
      throw new McpError(ErrorCode.InvalidParams, `Unknown prompt: ${ref.name}`);
    }
    calls.push({ completion: prompt, sent: ref.name, argument: argument.value });
    return { completion: { values: [`${prompt}-value`] } };
  });
  return server;
}

serveStateless(newServer, { calls });
