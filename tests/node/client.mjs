// The TypeScript SDK's client (the one IDEs build on) driving hindsight: store -> recall ->
// invalidate -> delete, over stdio or over streamable HTTP with a bearer token.
//   node client.mjs stdio <hindsight-server path>        (the environment selects the database)
//   node client.mjs http <http://host:port/mcp> <token>
// Prints one JSON line per step; exits 1 at the first step that does not do what it should.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const [mode, target, token] = process.argv.slice(2);
const transport =
  mode === "stdio"
    ? new StdioClientTransport({ command: target, env: process.env, stderr: "inherit" })
    : new StreamableHTTPClientTransport(new URL(target), {
        requestInit: { headers: { Authorization: `Bearer ${token}` } },
      });
const client = new Client({ name: "hindsight-ts-check", version: "1.0.0" });

function step(name, ok, detail) {
  console.log(JSON.stringify({ step: name, ok, ...detail }));
  if (!ok) process.exit(1);
}

async function call(name, args) {
  const result = await client.callTool({ name, arguments: args });
  if (result.isError) step(name, false, { error: result.content?.[0]?.text });
  return result.structuredContent ?? JSON.parse(result.content[0].text);
}

await client.connect(transport);
const info = client.getServerVersion();
step("initialize", info?.name === "hindsight" && Boolean(info?.version), { server: info });
const tools = (await client.listTools()).tools;
step("tools/list", tools.length === 9 && tools.every((t) => t.title && t.annotations), { tools: tools.length });
const content = `The TypeScript check ran over ${mode} at ${new Date().toISOString()}.`;
const stored = await call("store_memory", { content, memory_type: "semantic" });
step("store_memory", stored.status === "created", { id: stored.id });
const found = await call("retrieve_memory", { query: `When did the TypeScript check run over ${mode}?`, top_k: 3 });
step("retrieve_memory", found.memories[0]?.id === stored.id, { first: found.memories[0]?.id });
const gone = await call("invalidate_memory", { memory_id: stored.id, reason: "a check, not a fact" });
step("invalidate_memory", Boolean(gone.invalidated_at ?? gone.memory?.invalidated_at ?? gone.id), {});
const again = await call("retrieve_memory", { query: `When did the TypeScript check run over ${mode}?`, top_k: 3 });
step("retrieve after invalidate", !again.memories.some((m) => m.id === stored.id), {});
const deleted = await call("delete_memory", { memory_id: stored.id });
step("delete_memory", Boolean(deleted), {});
const bad = await client.callTool({ name: "store_memory", arguments: { content: "x", importance: 9 } });
step("bad input", bad.isError === true && /importance/.test(bad.content[0].text), {});
await client.close();
