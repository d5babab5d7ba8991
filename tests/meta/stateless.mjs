// A scripted MCP server that speaks only 2026-07-28 over stdio: no
// initialize (-32601), server/discover, and every request must carry the
// protocol version in _meta (-32602 otherwise).  Tool: whoami (answers the
// version the request carried).
import { createInterface } from 'node:readline';

const V = '2026-07-28';
const send = (m) => process.stdout.write(JSON.stringify({ jsonrpc: '2.0', ...m }) + '\n');
const tools = [{ name: 'whoami', description: 'Says which protocol version the request carried.',
                 inputSchema: { type: 'object', properties: {} } }];

createInterface({ input: process.stdin }).on('line', (line) => {
  let m;
  try { m = JSON.parse(line); } catch { return; }
  if (m.id === undefined) return;   // notifications
  const meta = m.params?._meta || {};
  const ver = meta['io.modelcontextprotocol/protocolVersion'];
  if (m.method === 'initialize') return send({ id: m.id, error: { code: -32601, message: 'Method not found: initialize' } });
  if (ver !== V || typeof meta['io.modelcontextprotocol/clientCapabilities'] !== 'object')
    return send({ id: m.id, error: { code: -32602, message: `_meta must carry protocolVersion ${V} and clientCapabilities` } });
  const ok = (result) => send({ id: m.id, result: { resultType: 'complete', ...result } });
  switch (m.method) {
    case 'server/discover':
      return ok({ supportedVersions: [V], capabilities: { tools: {} }, serverInfo: { name: 'stateless-fixture', version: '1.0.0' } });
    case 'tools/list':
      return ok({ tools });
    case 'tools/call':
      if (m.params.name === 'whoami') return ok({ content: [{ type: 'text', text: `version ${ver}` }] });
      return send({ id: m.id, error: { code: -32602, message: `unknown tool ${m.params.name}` } });
    default:
      return send({ id: m.id, error: { code: -32601, message: `Method not found: ${m.method}` } });
  }
});
