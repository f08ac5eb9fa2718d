// A client none of us wrote: the official MCP TypeScript SDK spawns
// `agentmail mcp` over stdio, as coding agents do, and checks what an agent
// relies on. It exits non-zero on any mismatch.
//
//   node client.mjs AGENTMAIL_BINARY REPOSITORY STORE
//
// Run by internal/mcpserver's TestNodeClient; .ci/run installs the SDK
// (npm ci --prefix testdata/mcp-node).
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

const [bin, repo, store] = process.argv.slice(2);
if (!store) {
  console.error('usage: node client.mjs AGENTMAIL_BINARY REPOSITORY STORE');
  process.exit(2);
}

function check(ok, what, got) {
  if (!ok) {
    console.error(`mismatch: ${what}: ${JSON.stringify(got)}`);
    process.exit(1);
  }
}

// connect starts a server acting as agent. The SDK passes the server only a
// few variables of its own environment (HOME, PATH, ...): the store and the
// agent must be in env.
async function connect(agent) {
  const client = new Client({ name: 'agentmail-node-test', version: '1.0.0' });
  await client.connect(new StdioClientTransport({
    command: bin,
    args: ['mcp'],
    cwd: repo,
    env: { AGENTMAIL_HOME: store, AGENTMAIL_AGENT: agent, PATH: process.env.PATH, HOME: process.env.HOME },
    stderr: 'inherit',
  }));
  return client;
}

// call calls a tool that must succeed and returns its structured content.
async function call(client, name, args) {
  const res = await client.callTool({ name, arguments: args });
  check(!res.isError, `${name} failed`, res.content);
  check(typeof res.content?.[0]?.text === 'string' && res.content[0].text !== '', `${name} has no text`, res.content);
  return res.structuredContent;
}

const green = await connect('GreenCastle');
const blue = await connect('BlueLake');

const { tools } = await green.listTools();
const names = tools.map((t) => t.name);
for (const want of ['register_agent', 'send_message', 'fetch_inbox', 'file_reservation_paths', 'wait_for_mail', 'macro_start_session']) {
  check(names.includes(want), `no tool ${want}`, names);
}
check(tools.length === 83, 'tool count', tools.length);
check(tools.every((t) => t.inputSchema?.type === 'object' && t.outputSchema?.type === 'object'), 'schemas', tools.filter((t) => !t.outputSchema).map((t) => t.name));

const g = await call(green, 'register_agent', { program: 'node-test', model: 'none', task_description: 'checks the TypeScript SDK' });
check(g.agent.name === 'GreenCastle', 'registered name', g);
const b = await call(blue, 'register_agent', { program: 'node-test' });
check(b.agent.name === 'BlueLake', 'registered name', b);

const sent = await call(green, 'send_message', { to: 'BlueLake', subject: 'From Node', body_md: 'Hello **BlueLake**.', importance: 'high' });
check(sent.message.from === 'GreenCastle' && sent.message.to[0] === 'BlueLake', 'sent message', sent);

const inbox = await call(blue, 'fetch_inbox', { include_bodies: true, urgent_only: true });
check(inbox.messages.length === 1, 'inbox length', inbox);
check(inbox.messages[0].id === sent.message.id && inbox.messages[0].body === 'Hello **BlueLake**.', 'inbox message', inbox.messages[0]);
check(inbox.messages[0].read_at === null, 'unread', inbox.messages[0]);

const held = await call(green, 'file_reservation_paths', { paths: ['src/**'], reason: 'rewrite', ttl_seconds: 600 });
check(held.granted.length === 1 && held.granted[0].pattern === 'src/**', 'granted', held);

// A conflict is a tool error (the SDK must not throw: an error carries no
// structured content to check against the output schema) whose text is
// the error document listing the conflicts.
const conflict = await blue.callTool({ name: 'file_reservation_paths', arguments: { paths: ['src/app.js'] } });
check(conflict.isError === true, 'conflict is a tool error', conflict);
const doc = JSON.parse(conflict.content[0].text);
check(doc.error.code === 'RESERVATION_CONFLICT' && doc.error.type === 'FILE_RESERVATION_CONFLICT', 'conflict code', doc);
check(doc.error.conflicts?.[0]?.holder === 'GreenCastle' && doc.error.conflicts[0].holder_pattern === 'src/**', 'conflicts listed', doc);
check(typeof doc.error.hint === 'string' && doc.error.hint.includes('allow_conflicts'), 'conflict hint', doc);

const res = await blue.readResource({ uri: `resource://inbox/BlueLake?project=${repo}&limit=5` });
const box = JSON.parse(res.contents[0].text);
check(box.messages[0].subject === 'From Node', 'inbox resource', box);

await green.close();
await blue.close();
console.log('ok: the TypeScript SDK listed the tools, registered two agents, sent, fetched, and saw the conflict');
