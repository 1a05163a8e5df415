/** `memory ui`: the local web viewer, until Ctrl-C. */
import { spawn } from 'node:child_process';
import { chmodSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ensurePrivateDir, PRIVATE_FILE_MODE, workDirFor } from '../../config/paths.js';
import type { Command } from 'commander';
import { UsageError, UserError } from '../../errors.js';
import { onPath } from '../agent-setup.js';
import type { Context } from '../../app/context.js';
import type { Runner } from '../runner.js';

/** The platform's "open this URL" command, if there is one. */
function opener(env: NodeJS.ProcessEnv): { cmd: string; args: (url: string) => string[] } | undefined {
  if (process.platform === 'darwin') return { cmd: 'open', args: (u) => [u] };
  if (process.platform === 'win32') return { cmd: 'cmd', args: (u) => ['/c', 'start', '', u] };
  const cmd = onPath('xdg-open', env);
  return cmd ? { cmd, args: (u) => [u] } : undefined;
}

/** A page that sends the browser to the viewer's address, readable by this user only. */
export function writeOpenerPage(baseDir: string, port: number, url: string): string {
  const dir = workDirFor(baseDir);
  ensurePrivateDir(dir);
  const path = join(dir, `viewer-${port}.html`);
  const href = url.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');
  writeFileSync(path, `<!doctype html><meta charset="utf-8"><meta http-equiv="refresh" content="0;url=${href}"><title>memory-engine</title><p><a href="${href}">Open the memory viewer</a></p>\n`, { mode: PRIVATE_FILE_MODE });
  chmodSync(path, PRIVATE_FILE_MODE);
  return path;
}

export function registerUi(program: Command, run: Runner): void {
  program
    .command('ui')
    .description('a local web page (127.0.0.1 only) to search, read and forget memories; serves until Ctrl-C')
    .option('--port <n>', 'port to listen on (default: any free port)', '0')
    .option('--no-open', 'do not open a browser')
    .action((flags: { port: string; open: boolean }) => run((ctx) => ui(ctx, flags)));
}

async function ui(ctx: Context, flags: { port: string; open: boolean }): Promise<number> {
  const port = Number(flags.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new UsageError(`--port must be a port number from 0 to 65535 (got "${flags.port}")`);
  const { startViewer } = await import('../../ui/server.js');
  let viewer;
  try {
    viewer = await startViewer(ctx, { port });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EADDRINUSE') throw new UserError(`port ${port} is in use`, 'choose another with --port, or leave it out for any free port');
    throw err;
  }
  const cleanup: Array<() => void> = [];
  ctx.io.stdout.write(`Memory viewer: ${viewer.url}\n`);
  ctx.io.stderr.write('Serving on 127.0.0.1 only; Ctrl-C stops it.\n');
  if (flags.open) {
    const o = opener(ctx.io.env);
    if (o) {
      // The token never goes into a process's arguments (every local user can read those in
      // `ps`): the browser opens a 0600 file of ours that redirects to the address, as
      // Jupyter does.
      const page = writeOpenerPage(ctx.config.baseDir, viewer.port, viewer.url);
      cleanup.push(() => rmSync(page, { force: true }));
      const child = spawn(o.cmd, o.args(pathToFileURL(page).href), { detached: true, stdio: 'ignore' });
      child.on('error', () => ctx.io.stderr.write('Could not open a browser: open the address above yourself.\n'));
      child.unref();
    } else ctx.io.stderr.write('No browser opener found: open the address above yourself.\n');
  }
  await new Promise<void>((resolve) => {
    const stop = () => resolve();
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
  await viewer.close();
  for (const f of cleanup) f();
  ctx.io.stderr.write('Memory viewer stopped.\n');
  return 0;
}
