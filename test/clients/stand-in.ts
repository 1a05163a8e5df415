/**
 * The stand-in model server for the real agent clients: the one fake, at the rim. It speaks
 * just enough of Anthropic's Messages API (Claude Code) and OpenAI's Responses API (Codex) to
 * finish a turn with a text reply, on 127.0.0.1 only, and keeps every request body so a test
 * can see what the agent was given (SessionStart's additionalContext arrives in them).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface StandIn {
  url: string;
  port: number;
  /** Every request body received (parsed JSON), with its path. */
  requests: Array<{ path: string; body: unknown }>;
  /** The text of every request body that asked for a reply (model turns). */
  turnBodies: () => string[];
  close: () => Promise<void>;
}

/** A tool the model asks the client to run, instead of a text reply (Claude Code: `tool_use`; Codex: a function call). */
export interface ToolCall {
  tool: string;
  input: Record<string, unknown>;
  /** Codex: the namespace its tool list puts the tool in (an MCP server's tools: `mcp__<server>`). */
  namespace?: string;
}

/**
 * `reply` gives the assistant's text for a request — or a tool call, which makes the client run
 * the tool (and its hooks) and ask again with the result; the default names the last user text.
 */
export async function startStandIn(reply: (body: unknown) => string | ToolCall): Promise<StandIn> {
  const requests: StandIn['requests'] = [];
  const server: Server = createServer((req, res) => {
    void handle(req, res);
  });
  let turn = 0;
  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const raw = Buffer.concat(chunks).toString('utf8');
    let body: unknown = raw;
    try {
      body = raw ? JSON.parse(raw) : undefined;
    } catch {
      /* not JSON: kept as text */
    }
    const path = (req.url ?? '').split('?')[0] ?? '';
    requests.push({ path, body });
    if (req.method === 'HEAD' || path === '/api/hello') {
      res.writeHead(200, { 'content-type': 'application/json' }).end(req.method === 'HEAD' ? undefined : '{}');
      return;
    }
    if (path.endsWith('/messages/count_tokens')) {
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ input_tokens: 100 }));
      return;
    }
    if (path.endsWith('/v1/messages')) {
      const r = reply(body);
      const stream = (body as { stream?: boolean } | undefined)?.stream === true;
      if (typeof r === 'string') anthropic(res, r, stream, ++turn);
      else anthropicTool(res, r, stream, ++turn);
      return;
    }
    if (path.endsWith('/responses')) {
      const r = reply(body);
      if (typeof r === 'string') openai(res, r, ++turn);
      else openaiTool(res, r, ++turn);
      return;
    }
    res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"not here"}');
  }
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    requests,
    turnBodies: () => requests.filter((r) => r.path.endsWith('/v1/messages') || r.path.endsWith('/responses')).map((r) => JSON.stringify(r.body)),
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

function sse(res: ServerResponse, events: Array<[string, unknown]>): void {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
  for (const [event, data] of events) res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
  res.end();
}

function anthropic(res: ServerResponse, text: string, stream: boolean, n: number): void {
  const id = `msg_standin_${n}`;
  const usage = { input_tokens: 100, output_tokens: Math.max(1, Math.ceil(text.length / 4)) };
  if (!stream) {
    res.writeHead(200, { 'content-type': 'application/json' }).end(
      JSON.stringify({ id, type: 'message', role: 'assistant', model: 'stand-in', content: [{ type: 'text', text }], stop_reason: 'end_turn', stop_sequence: null, usage }),
    );
    return;
  }
  sse(res, [
    ['message_start', { type: 'message_start', message: { id, type: 'message', role: 'assistant', model: 'stand-in', content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 100, output_tokens: 1 } } }],
    ['content_block_start', { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }],
    ['content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text } }],
    ['content_block_stop', { type: 'content_block_stop', index: 0 }],
    ['message_delta', { type: 'message_delta', delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens: usage.output_tokens } }],
    ['message_stop', { type: 'message_stop' }],
  ]);
}

function anthropicTool(res: ServerResponse, call: ToolCall, stream: boolean, n: number): void {
  const id = `msg_standin_${n}`;
  const block = { type: 'tool_use', id: `toolu_standin_${n}`, name: call.tool, input: call.input };
  if (!stream) {
    res.writeHead(200, { 'content-type': 'application/json' }).end(
      JSON.stringify({ id, type: 'message', role: 'assistant', model: 'stand-in', content: [block], stop_reason: 'tool_use', stop_sequence: null, usage: { input_tokens: 100, output_tokens: 20 } }),
    );
    return;
  }
  sse(res, [
    ['message_start', { type: 'message_start', message: { id, type: 'message', role: 'assistant', model: 'stand-in', content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 100, output_tokens: 1 } } }],
    ['content_block_start', { type: 'content_block_start', index: 0, content_block: { ...block, input: {} } }],
    ['content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'input_json_delta', partial_json: JSON.stringify(call.input) } }],
    ['content_block_stop', { type: 'content_block_stop', index: 0 }],
    ['message_delta', { type: 'message_delta', delta: { stop_reason: 'tool_use', stop_sequence: null }, usage: { output_tokens: 20 } }],
    ['message_stop', { type: 'message_stop' }],
  ]);
}

function openaiTool(res: ServerResponse, call: ToolCall, n: number): void {
  const id = `resp_standin_${n}`;
  // apply_patch is a freeform (custom) tool in Codex; anything else a function with JSON arguments.
  const item =
    call.tool === 'apply_patch'
      ? { id: `ctc_standin_${n}`, type: 'custom_tool_call', status: 'completed', call_id: `call_standin_${n}`, name: call.tool, input: String(call.input.patch ?? '') }
      : { id: `fc_standin_${n}`, type: 'function_call', status: 'completed', call_id: `call_standin_${n}`, name: call.tool, ...(call.namespace ? { namespace: call.namespace } : {}), arguments: JSON.stringify(call.input) };
  sse(res, [
    ['response.created', { type: 'response.created', response: { id, object: 'response', status: 'in_progress', output: [] } }],
    ['response.output_item.added', { type: 'response.output_item.added', output_index: 0, item }],
    ['response.output_item.done', { type: 'response.output_item.done', output_index: 0, item }],
    ['response.completed', { type: 'response.completed', response: { id, object: 'response', status: 'completed', output: [item], usage: { input_tokens: 100, input_tokens_details: { cached_tokens: 0 }, output_tokens: 10, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 110 } } }],
  ]);
}

function openai(res: ServerResponse, text: string, n: number): void {
  const id = `resp_standin_${n}`;
  const itemId = `msg_standin_${n}`;
  const item = { id: itemId, type: 'message', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text, annotations: [] }] };
  sse(res, [
    ['response.created', { type: 'response.created', response: { id, object: 'response', status: 'in_progress', output: [] } }],
    ['response.output_item.added', { type: 'response.output_item.added', output_index: 0, item: { ...item, status: 'in_progress', content: [] } }],
    ['response.output_text.delta', { type: 'response.output_text.delta', item_id: itemId, output_index: 0, content_index: 0, delta: text }],
    ['response.output_item.done', { type: 'response.output_item.done', output_index: 0, item }],
    ['response.completed', { type: 'response.completed', response: { id, object: 'response', status: 'completed', output: [item], usage: { input_tokens: 100, input_tokens_details: { cached_tokens: 0 }, output_tokens: 10, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 110 } } }],
  ]);
}

/** The last user text of a Messages or Responses request body (what the person typed, plus context). */
export function lastUserText(body: unknown): string {
  const b = body as { messages?: Array<{ role: string; content: unknown }>; input?: Array<{ role?: string; content?: unknown }> };
  const list = b?.messages ?? b?.input ?? [];
  for (let i = list.length - 1; i >= 0; i--) {
    const m = list[i];
    if (m?.role !== 'user') continue;
    const c = m.content;
    if (typeof c === 'string') return c;
    if (Array.isArray(c)) {
      const texts = c.map((p) => (p as { text?: string }).text).filter((t): t is string => typeof t === 'string');
      if (texts.length > 0) return texts[texts.length - 1] as string;
    }
  }
  return '';
}

/**
 * Codex (a Responses API body): "Search memory: {…}" asks for the MCP tool memory_search with those
 * arguments, until a tool's output is back — in the namespace the request offers it in, as a model
 * would: Codex 0.171 lists an MCP server's tools as one `namespace` tool (`mcp__memory_engine`, its
 * `-` written `_`, the same for the package's server and the plugin's). Not offered: no call.
 */
export function codexMemorySearch(body: unknown): ToolCall | undefined {
  const input = (body as { input?: Array<{ type?: string }> }).input;
  if (!Array.isArray(input) || input.some((i) => i.type === 'custom_tool_call_output' || i.type === 'function_call_output')) return undefined;
  const args = /^Search memory: (\{.*\})$/m.exec(lastUserText(body));
  const namespace = codexNamespaceOf(body, 'memory_search');
  return args && namespace ? { tool: 'memory_search', namespace, input: JSON.parse(args[1] as string) as Record<string, unknown> } : undefined;
}

/**
 * Claude Code (a Messages API body): "Search memory: {…}" asks for our MCP server's memory_search with
 * those arguments, as a model would find it. Claude Code 2.1.332 defers MCP tools: a system message
 * names them (`mcp__memory-engine__memory_search` from `memory install`,
 * `mcp__plugin_memory-engine_memory-engine__memory_search` from the plugin) and ToolSearch
 * ("select:<name>") loads one's schema. So: ToolSearch first unless the tool is already among
 * the request's tools, then the tool, then nothing more. Not named anywhere: no call.
 */
export function claudeMemorySearch(body: unknown): ToolCall | undefined {
  const b = body as { messages?: Array<{ role: string; content: unknown }>; tools?: Array<{ name?: string }> };
  if (!Array.isArray(b.messages)) return undefined;
  const parts = b.messages.flatMap((m) => (Array.isArray(m.content) ? (m.content as Array<{ type?: string; text?: string; name?: string }>).map((c) => ({ role: m.role, ...c })) : [{ role: m.role, type: 'text', text: String(m.content) }]));
  const asked = parts.map((p) => (p.role === 'user' && typeof p.text === 'string' ? /^Search memory: (\{.*\})$/m.exec(p.text)?.[1] : undefined)).find(Boolean);
  const name = /mcp__(?:plugin_memory-engine_)?memory-engine__memory_search/.exec(JSON.stringify(body))?.[0];
  if (!asked || !name) return undefined;
  const used = parts.filter((p) => p.type === 'tool_use').map((p) => p.name);
  if (used.includes(name)) return undefined;
  const tools = (b.tools ?? []).map((t) => t.name);
  if (!tools.includes(name) && tools.includes('ToolSearch') && !used.includes('ToolSearch')) return { tool: 'ToolSearch', input: { query: `select:${name}` } };
  return { tool: name, input: JSON.parse(asked) as Record<string, unknown> };
}

/** The namespace a Codex request offers the tool `name` in (a `namespace` tool holding it). */
export function codexNamespaceOf(body: unknown, name: string): string | undefined {
  const tools = (body as { tools?: Array<{ type?: string; name?: string; tools?: Array<{ name?: string }> }> }).tools;
  return Array.isArray(tools) ? tools.find((t) => t.type === 'namespace' && Array.isArray(t.tools) && t.tools.some((x) => x.name === name))?.name : undefined;
}
