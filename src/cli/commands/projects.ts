/** `memory projects` and `memory projects merge OLD NEW`. */
import type { Command } from 'commander';
import { runtimeOf, type Context } from '../../app/context.js';
import { mergeProjects } from '../../app/projects.js';
import { openCache } from '../../store/cache.js';
import type { Runner } from '../runner.js';
import { printJson } from '../render.js';
import { machineLabel, projectLabel } from '../../project/label.js';

export function registerProjects(program: Command, run: Runner): void {
  const cmd = program
    .command('projects')
    .description('list projects (one per repository) with their memories, machines and repositories')
    .option('--json', 'print the list as JSON')
    .action((flags: { json?: boolean }) => run((ctx) => list(ctx, flags.json === true)));
  cmd
    .command('merge')
    .description('file the memories of project OLD under project NEW on every machine (an alias in the memory repository; no memory is rewritten)')
    .argument('<old>', 'the project name to retire (e.g. a folder name from before projects followed repositories)')
    .argument('<new>', 'the project to file them under (a name, or its repository: github.com/acme/api)')
    .option('--no-push', 'commit but do not push')
    .option('--json', 'print the result as JSON')
    .action((from: string, to: string, flags: { push: boolean; json?: boolean }) => run((ctx) => merge(ctx, from, to, flags)));
}

async function list(ctx: Context, json: boolean): Promise<number> {
  const { store } = openCache(ctx.cacheOptions({ lockTimeoutMs: 3000 }));
  try {
    const projects = store.projects.projectList();
    const aliases = store.projects.aliasList();
    if (json) {
      printJson(ctx.io, { projects, aliases: aliases.map((a) => ({ from: a.from, to: a.to, ...(a.repo ? { repo: a.repo } : {}), machine: a.machine, at: a.at })) });
      return 0;
    }
    if (projects.length === 0) {
      ctx.io.stdout.write('No memories yet.\n');
      return 0;
    }
    const rows = projects.map((p) => [projectLabel(p.project) === p.project ? p.project : `${projectLabel(p.project)} (${p.project})`, String(p.memories), p.machines.map(machineLabel).join(', '), p.repos.join(', ') || '(a folder, no repository)', p.names.map((n) => projectLabel(n)).join(', ')]);
    const head = ['project', 'memories', 'machines', 'repository', 'also captured as'];
    const width = head.map((h, i) => Math.min(40, Math.max(h.length, ...rows.map((r) => (r[i] as string).length))));
    const line = (cells: string[]) => `${cells.map((c, i) => (i === cells.length - 1 ? c : c.padEnd(width[i] as number))).join('  ')}`.trimEnd();
    ctx.io.stdout.write(`${[line(head), ...rows.map(line)].join('\n')}\n`);
    if (aliases.length > 0) ctx.io.stdout.write(`\nMerged: ${aliases.map((a) => `${a.from} → ${a.to}`).join(', ')}\n`);
    const loose = projects.filter((p) => p.repos.length === 0 && p.memories > 0);
    if (loose.length > 0 && projects.some((p) => p.repos.length > 0)) {
      ctx.io.stdout.write(`\nProjects without a repository here are older folder names (or folders outside git); file one under its repository with: memory projects merge ${projectLabel(loose[0]?.project)} <project>\n`);
    }
  } finally {
    store.close();
  }
  return 0;
}

async function merge(ctx: Context, from: string, to: string, flags: { push: boolean; json?: boolean }): Promise<number> {
  const rt = runtimeOf(ctx, { echoInfo: !flags.json });
  const res = await mergeProjects(rt, from, to, flags.push);
  if (flags.json) printJson(ctx.io, { from: res.from, to: res.to, moved: res.moved, committed: res.sync?.committed ?? false, push: res.sync?.push?.status ?? null });
  else ctx.io.stdout.write(`Project "${projectLabel(res.from)}" is now filed under "${projectLabel(res.to)}" (${res.moved} ${res.moved === 1 ? 'memory' : 'memories'} moved${res.sync?.committed ? ', committed' : ''}); every machine follows at its next session start.\n`);
  return 0;
}
