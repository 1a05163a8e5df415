/**
 * The `memory` command line (commander). The only place that prints errors and sets the
 * exit code. Loaded by main.ts for every command but the Stop hook's fast path.
 */
import { Command, CommanderError } from 'commander';
import { UserError } from '../errors.js';
import { makeContext, type IO } from '../app/context.js';
import { registerRebuild } from './commands/rebuild.js';
import { registerSearch } from './commands/search.js';
import { registerStatus } from './commands/status.js';
import { makeHookRunner } from './hook-runner.js';
import type { Runner } from './runner.js';
import { registerSessionStart } from './commands/session-start.js';
import { registerSessionEnd } from './commands/session-end.js';
import { registerRecall } from './commands/recall.js';
import { registerMcp } from './commands/mcp.js';
import { registerUi } from './commands/ui.js';
import { registerImport } from './commands/import.js';
import { registerInstall } from './commands/install.js';
import { registerUninstall } from './commands/uninstall.js';
import { registerShow } from './commands/show.js';
import { registerForget } from './commands/forget.js';
import { registerScrub } from './commands/scrub.js';
import { registerMonthlyMerge } from './commands/monthly-merge.js';
import { registerModel } from './commands/model.js';
import { registerInit } from './commands/init.js';
import { registerSync } from './commands/sync.js';
import { registerProjects } from './commands/projects.js';
import { registerUpgrade } from './commands/upgrade.js';
import { registerDoctor } from './commands/doctor.js';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from '../config/paths.js';

export function packageVersion(): string {
  return (JSON.parse(readFileSync(join(packageRoot(), 'package.json'), 'utf8')) as { version: string }).version;
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

  const run: Runner = async (body, globals) => {
    const ctx = await makeContext(globals ?? program.opts<{ config?: string }>(), io);
    exitCode = await body(ctx);
  };
  const hook = makeHookRunner(io, () => program.opts<{ config?: string }>(), (code) => (exitCode = code));
  registerSearch(program, run);
  registerSessionStart(program, hook);
  registerSessionEnd(program, hook, run);
  registerRecall(program, hook);
  registerMcp(program, run);
  registerUi(program, run);
  registerImport(program, run);
  registerRebuild(program, run);
  registerStatus(program, run);
  registerShow(program, run);
  registerForget(program, run);
  registerScrub(program, run);
  registerMonthlyMerge(program, run);
  registerInstall(program, run);
  registerUninstall(program, run);
  registerModel(program, run);
  registerInit(program, run);
  registerSync(program, run);
  registerProjects(program, run);
  registerUpgrade(program, run);
  registerDoctor(program, run);
  for (const cmd of program.commands) cmd.exitOverride().showHelpAfterError('(run with --help for usage)');

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
