// A tiny MCP server whose tool gets aliases through the artifact round trip.
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { z } from 'zod';

const server = new McpServer({ name: 'fixture', version: '1.0.0' });
server.registerTool('greet', {
  title: 'Greet',
  description: 'Greets a person by name.',
  inputSchema: { name: z.string().describe('who to greet') },
  annotations: { readOnlyHint: true },
}, async ({ name }) => ({ content: [{ type: 'text', text: `hello ${name}` }] }));
await server.connect(new StdioServerTransport());
