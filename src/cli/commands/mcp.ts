/** `memory mcp`: serve the memory over stdio MCP until the client closes the pipe. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Command } from 'commander';
import { packageRoot } from '../../config/load.js';
import type { Runner } from '../runner.js';

export function registerMcp(program: Command, run: Runner): void {
  program
    .command('mcp')
    .description('serve memory_search, memory_show, memory_forget and memory_remember as an MCP server on stdio (for Claude Code, Codex and any MCP client)')
    .action(() =>
      run(async (ctx) => {
        // Loaded here: the SDK is only needed by this command.
        const [{ StdioServerTransport }, { buildMcpServer }] = await Promise.all([import('@modelcontextprotocol/sdk/server/stdio.js'), import('../../mcp/server.js')]);
        const version = (JSON.parse(readFileSync(join(packageRoot(), 'package.json'), 'utf8')) as { version: string }).version;
        const server = buildMcpServer(ctx, version);
        const transport = new StdioServerTransport();
        const closed = new Promise<void>((resolve) => {
          transport.onclose = () => resolve();
          process.stdin.once('end', () => resolve());
        });
        await server.connect(transport);
        ctx.io.stderr.write(`memory-engine MCP server ready (config ${ctx.config.sources[0] ?? 'defaults'})\n`);
        await closed;
        await server.close().catch(() => undefined);
        return 0;
      }),
    );
}
