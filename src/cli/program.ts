/**
 * The `memory` command line (commander). The only place that prints errors and sets the
 * exit code. Loaded by main.ts for every command but the Stop hook's fast path.
 */
import { Command, CommanderError } from 'commander';
import { UserError } from '../errors.js';
import { makeContext, type Context, type IO } from '../app/context.js';
import { makeHookRunner, type HookRunner } from './hook-runner.js';
import type { Runner } from './runner.js';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from '../config/paths.js';

export function packageVersion(): string {
  return (JSON.parse(readFileSync(join(packageRoot(), 'package.json'), 'utf8')) as { version: string }).version;
}

type Register = (program: Command, run: Runner, hook: HookRunner) => void;

/**
 * Every command, in the order `--help` lists them, each loaded only when it is asked for: a
 * command's module imports what it runs (SQLite, git, the MCP SDK, the viewer), and every call,
 * session start included, loaded all of them (163 modules for `memory rebuild`, 96 now;
 * bench/RESULTS.md).
 */
const COMMANDS: ReadonlyArray<readonly [string, () => Promise<Register>]> = [
  ['search', async () => { const m = await import('./commands/search.js'); return (p, run) => m.registerSearch(p, run); }],
  ['session-start', async () => { const m = await import('./commands/session-start.js'); return (p, _run, hook) => m.registerSessionStart(p, hook); }],
  ['session-end', async () => { const m = await import('./commands/session-end.js'); return (p, run, hook) => m.registerSessionEnd(p, hook, run); }],
  ['recall', async () => { const m = await import('./commands/recall.js'); return (p, _run, hook) => m.registerRecall(p, hook); }],
  ['file-recall', async () => { const m = await import('./commands/file-recall.js'); return (p, _run, hook) => m.registerFileRecall(p, hook); }],
  ['renames', async () => { const m = await import('./commands/renames.js'); return (p, run) => m.registerRenames(p, run); }],
  ['mcp', async () => { const m = await import('./commands/mcp.js'); return (p, run) => m.registerMcp(p, run); }],
  ['ui', async () => { const m = await import('./commands/ui.js'); return (p, run) => m.registerUi(p, run); }],
  ['import', async () => { const m = await import('./commands/import.js'); return (p, run) => m.registerImport(p, run); }],
  ['rebuild', async () => { const m = await import('./commands/rebuild.js'); return (p, run) => m.registerRebuild(p, run); }],
  ['status', async () => { const m = await import('./commands/status.js'); return (p, run) => m.registerStatus(p, run); }],
  ['show', async () => { const m = await import('./commands/show.js'); return (p, run) => m.registerShow(p, run); }],
  ['forget', async () => { const m = await import('./commands/forget.js'); return (p, run) => m.registerForget(p, run); }],
  ['scrub', async () => { const m = await import('./commands/scrub.js'); return (p, run) => m.registerScrub(p, run); }],
  ['monthly-merge', async () => { const m = await import('./commands/monthly-merge.js'); return (p, run) => m.registerMonthlyMerge(p, run); }],
  ['install', async () => { const m = await import('./commands/install.js'); return (p, run) => m.registerInstall(p, run); }],
  ['uninstall', async () => { const m = await import('./commands/uninstall.js'); return (p, run) => m.registerUninstall(p, run); }],
  ['model', async () => { const m = await import('./commands/model.js'); return (p, run) => m.registerModel(p, run); }],
  ['init', async () => { const m = await import('./commands/init.js'); return (p, run) => m.registerInit(p, run); }],
  ['sync', async () => { const m = await import('./commands/sync.js'); return (p, run) => m.registerSync(p, run); }],
  ['projects', async () => { const m = await import('./commands/projects.js'); return (p, run) => m.registerProjects(p, run); }],
  ['upgrade', async () => { const m = await import('./commands/upgrade.js'); return (p, run) => m.registerUpgrade(p, run); }],
  ['doctor', async () => { const m = await import('./commands/doctor.js'); return (p, run) => m.registerDoctor(p, run); }],
  ['team', async () => { const m = await import('./commands/team.js'); return (p, run) => m.registerTeam(p, run); }],
];

/**
 * The command argv names (its first word that is not a global option or its value), or
 * undefined: none, `help`, or a word that is no command — then every command is registered, for
 * the full help and commander's "unknown command" with its suggestion.
 */
export function commandNamed(argv: readonly string[]): string | undefined {
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i] as string;
    if (a === '-c' || a === '--config') i++;
    else if (!a.startsWith('-')) return COMMANDS.some(([name]) => name === a) ? a : undefined;
  }
  return undefined;
}

export async function main(argv: string[], io: IO): Promise<number> {
  let exitCode = 0;
  const program = new Command('memory')
    .description('Long-term memory for AI coding agents: every Q&A turn kept verbatim in git-synced JSONL, found again by hybrid search.')
    .version(packageVersion(), '-V, --version', 'print the version of memory-engine')
    .option('-c, --config <file>', 'config file (default: MEMORY_CONFIG, else config.toml of the memory home: MEMORY_HOME, else the per-user data folder)')
    .option('--debug', 'print stack traces of unexpected errors')
    .showHelpAfterError('(run with --help for usage)')
    .exitOverride()
    .configureOutput({
      writeOut: (s) => io.stdout.write(s),
      writeErr: (s) => io.stderr.write(s),
    });

  const run: Runner = async (body, globals, opts = {}) => {
    let ctx: Context;
    try {
      ctx = await makeContext(globals ?? program.opts<{ config?: string }>(), io);
    } catch (err) {
      if (!opts.orElse) throw err;
      exitCode = await opts.orElse(err, io);
      return;
    }
    exitCode = await body(ctx);
  };
  const hook = makeHookRunner(io, () => program.opts<{ config?: string }>(), (code) => (exitCode = code));
  const named = commandNamed(argv);
  const wanted = named === undefined ? COMMANDS : COMMANDS.filter(([name]) => name === named);
  for (const register of await Promise.all(wanted.map(([, load]) => load()))) register(program, run, hook);
  // Subcommands too (`memory team review`): commander exits by itself unless told not to.
  const manners = (cmds: readonly Command[]): void => {
    for (const cmd of cmds) {
      cmd.exitOverride().showHelpAfterError('(run with --help for usage)').configureOutput({ writeOut: (t) => io.stdout.write(t), writeErr: (t) => io.stderr.write(t) });
      manners(cmd.commands);
    }
  };
  manners(program.commands);

  try {
    await program.parseAsync(argv, { from: 'user' });
    if (argv.length === 0) {
      io.stdout.write(program.helpInformation());
    }
    return exitCode;
  } catch (err) {
    if (err instanceof CommanderError) {
      // Help and version end here too, with code 0; usage errors were already printed.
      return err.exitCode === 0 ? 0 : 2;
    }
    if (err instanceof UserError) {
      io.stderr.write(`memory: ${err.message}\n`);
      if (err.hint) io.stderr.write(`hint: ${err.hint}\n`);
      return err.exitCode;
    }
    const debug = argv.includes('--debug');
    io.stderr.write(`memory: unexpected error: ${err instanceof Error ? err.message : String(err)}\n`);
    if (debug && err instanceof Error && err.stack) io.stderr.write(`${err.stack}\n`);
    else io.stderr.write('hint: run again with --debug for details, and report it if it persists\n');
    return 70;
  }
}
