// The official MCP TypeScript SDK against agentmail serve's /mcp/ endpoint
// over streamable HTTP with the bearer token, as an HTTP-configured coding
// agent connects. It exits non-zero on any mismatch.
//
//   node http.mjs URL TOKEN
//
// Run by internal/server's TestNodeHTTPClient; .ci/run installs the SDK
// (npm ci --prefix testdata/mcp-node).
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

const [url, token] = process.argv.slice(2);
if (!token) {
  console.error('usage: node http.mjs URL TOKEN');
  process.exit(2);
}

function check(ok, what, got) {
  if (!ok) {
    console.error(`mismatch: ${what}: ${JSON.stringify(got)}`);
    process.exit(1);
  }
}

// connect opens a session: what one agentmail mcp process is on stdio.
async function connect(bearer) {
  const client = new Client({ name: 'agentmail-node-http-test', version: '1.0.0' });
  const headers = bearer ? { Authorization: `Bearer ${bearer}` } : {};
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }));
  return client;
}

async function call(client, name, args) {
  const res = await client.callTool({ name, arguments: args });
  check(!res.isError, `${name} failed`, res.content);
  return res.structuredContent;
}

// Without the token, or with a wrong one, the server refuses.
for (const bearer of [null, token + 'x']) {
  let refused = null;
  try {
    const c = await connect(bearer);
    await c.listTools();
    await c.close();
  } catch (e) {
    refused = String(e);
  }
  check(refused !== null && refused.includes('UNAUTHORIZED'), `connecting with ${bearer ? 'a wrong token' : 'no token'} is refused`, refused);
}

const green = await connect(token);
const blue = await connect(token);

const { tools } = await green.listTools();
check(tools.length === 83, 'tool count', tools.length);
for (const want of ['register_agent', 'send_message', 'fetch_inbox', 'file_reservation_paths']) {
  check(tools.some((t) => t.name === want), `no tool ${want}`, tools.map((t) => t.name));
}

// Each session takes on the agent it registers, as a stdio process does.
const g = await call(green, 'register_agent', { name: 'GreenCastle', program: 'node-http-test' });
check(g.agent.name === 'GreenCastle', 'registered', g);
const b = await call(blue, 'register_agent', { name: 'BlueLake', program: 'node-http-test' });
check(b.agent.name === 'BlueLake', 'registered', b);
const other = await green.callTool({ name: 'fetch_inbox', arguments: { agent_name: 'BlueLake' } });
check(other.isError === true && JSON.parse(other.content[0].text).error.code === 'AUTHENTICATION_REQUIRED', 'a session acts as its own agent only', other.content);

const sent = await call(green, 'send_message', { to: 'BlueLake', subject: 'Over HTTP', body_md: 'Hello **BlueLake**.' });
check(sent.message.from === 'GreenCastle', 'sent', sent);
const inbox = await call(blue, 'fetch_inbox', { include_bodies: true });
check(inbox.messages.length === 1 && inbox.messages[0].id === sent.message.id && inbox.messages[0].body === 'Hello **BlueLake**.', 'inbox', inbox);

const held = await call(green, 'file_reservation_paths', { paths: ['src/**'], ttl_seconds: 600 });
check(held.granted.length === 1, 'granted', held);
const conflict = await blue.callTool({ name: 'file_reservation_paths', arguments: { paths: ['src/app.js'] } });
check(conflict.isError === true, 'conflict is a tool error', conflict);
const doc = JSON.parse(conflict.content[0].text);
check(doc.error.code === 'RESERVATION_CONFLICT' && doc.error.conflicts?.[0]?.holder === 'GreenCastle', 'conflict', doc);

await green.close();
await blue.close();
console.log('ok: over streamable HTTP with the token the TypeScript SDK listed the tools, registered two agents, sent, fetched and saw the conflict; without it, refused');
