/** `memory sync`: commit, pull and push now. */
import type { Command } from 'commander';
import { runSync } from '../../app/sync/init.js';
import { type Context } from '../../app/context.js';
import { printJson } from '../render.js';
import { runtimeOf } from '../../app/context.js';
import type { Runner } from '../runner.js';

export function registerSync(program: Command, run: Runner): void {
  program
    .command('sync')
    .description('commit pending captures, pull from and push to the memory remote now, and print the outcome')
    .option('--json', 'print the outcome as JSON')
    .action((flags: { json?: boolean }) => run((ctx) => sync(ctx, flags.json === true)));
}

async function sync(ctx: Context, json: boolean): Promise<number> {
  const r = await runSync(runtimeOf(ctx, { quiet: true }));
  const pullOk = r.pull === undefined || ['pulled', 'up-to-date', 'no-branch'].includes(r.pull.status);
  const pushOk = r.push === undefined || ['pushed', 'up-to-date'].includes(r.push.status);
  const commitOk = r.commitFailed === undefined;
  if (json) {
    printJson(ctx.io, { remote: r.remote, url: r.url, committed: r.committed, ...(r.commitFailed ? { commit_failed: r.commitFailed } : {}), pull: r.pull ?? null, push: r.push ?? null, ok: commitOk && pullOk && pushOk });
  } else {
    const lines = [
      `memory remote  ${r.remote} → ${r.url}`,
      `commit         ${r.commitFailed ? `failed: ${r.commitFailed} (the captures stay in the export folder)` : r.committed ? 'pending captures committed' : 'nothing pending'}`,
      `pull           ${r.pull ? `${r.pull.status}${r.pull.detail ? `: ${r.pull.detail}` : ''}` : '-'}`,
      `push           ${r.push ? `${r.push.status}${r.push.detail && !pushOk ? `: ${r.push.detail}` : ''}` : 'nothing to push'}`,
    ];
    ctx.io.stdout.write(`${lines.join('\n')}\n`);
  }
  return commitOk && pullOk && pushOk ? 0 : 1;
}
