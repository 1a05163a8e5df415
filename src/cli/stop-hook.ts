/**
 * `memory session-end` as a hook (Stop, SessionEnd) or by hand with `--transcript`: read
 * the hook input, queue the transcript, start the worker if none runs, exit 0. Loads no
 * config parser, no SQLite, no git, no model (a test traces the imports): it runs after
 * every turn of every session. A SessionEnd, or a transcript named by hand, asks the
 * worker to commit and push at once.
 *
 * Codex calls it two ways: as its Stop hook (`session-end --agent codex`: the input may
 * lack `transcript_path`, then the rollout is found by the session id) and as its `notify`
 * program (`codex-notify '<json>'`, the JSON as the last argument).
 */
import { dirname, join } from 'node:path';
import { parseArgs } from 'node:util';
import { configFileFor, workDirFor } from '../config/paths.js';
import { looksLikeProject } from '../home/place.js';
import { errorMessage } from '../errors.js';
import { parseHookInput, readHookStdin, type HookInput } from '../app/input.js';
import { fileLogger } from '../app/log.js';
import { recordStop, spawnWorker } from '../app/capture/stop.js';
import { codexHome, findRollout } from '../agents/codex/sessions.js';
import type { IO } from '../app/context.js';

export async function stopHook(argv: string[], io: IO): Promise<number> {
  try {
    // The same flags as the full command line's session-end (program.ts); node's own parser
    // costs nothing to load, commander ~13 ms.
    const { values, positionals } = parseArgs({
      args: argv,
      allowPositionals: true,
      strict: false,
      options: {
        config: { type: 'string', short: 'c' },
        debug: { type: 'boolean' },
        transcript: { type: 'string' },
        session: { type: 'string' },
        cwd: { type: 'string' },
        'no-push': { type: 'boolean' },
        agent: { type: 'string' },
      },
    });
    const str = (k: string) => (typeof values[k] === 'string' ? (values[k] as string) : undefined);
    const notify = positionals[0] === 'codex-notify';
    let input: HookInput;
    if (notify) {
      const n = codexNotification(positionals[positionals.length - 1]);
      if (!n) return 0; // not the end of a turn
      input = n;
    } else {
      const parsed = parseHookInput(await readHookStdin(io));
      if (parsed.problem) io.stderr.write(`memory: ${parsed.problem}\n`);
      input = parsed.input;
    }
    const codex = notify || str('agent') === 'codex';
    const cfg = configFileFor(str('config'), io.env, io.cwd);
    const baseDir = dirname(cfg.file);
    if (cfg.home && looksLikeProject(cfg.home)) {
      // A project named as the memory home: nothing is written there (the session start says why).
      io.stderr.write(`memory: the memory home ${cfg.home} is a project's repository: this turn is not queued there\n`);
      return 0;
    }
    const log = fileLogger(join(workDirFor(baseDir), 'memory.log'), { stderr: io.stderr });
    const sessionId = str('session') ?? input.session_id;
    let transcript = str('transcript') ?? input.transcript_path;
    if (!transcript && codex) {
      transcript = sessionId ? findRollout(codexHome(io.env), sessionId) : undefined;
      if (!transcript) {
        log.warn(`session-end: no Codex rollout found for session ${sessionId ?? '(none given)'} under ${codexHome(io.env)}`);
        return 0;
      }
    }
    const cwd = str('cwd') ?? input.cwd;
    const r = await recordStop(
      {
        baseDir,
        // Only when no transcript is named: find the newest one of the cwd's project.
        projectsDir: async () => (await import('../config/load.js')).loadConfig({ ...(cfg.explicit ? { configPath: cfg.file } : {}), env: io.env, cwd: io.cwd }).config.general.claude_projects_dir,
      },
      {
        ...(transcript ? { transcript } : {}),
        ...(sessionId ? { sessionId } : {}),
        ...(cwd ? { cwd } : {}),
        push: values['no-push'] !== true,
        flush: input.hook_event_name === 'SessionEnd' || str('transcript') !== undefined,
      },
      { now: io.now, spawnWorker: () => spawnWorker(cfg.explicit ? cfg.file : undefined, io.env, (m) => log.warn(m)) },
    );
    if (r.problem) log.warn(`session-end: ${r.problem}`);
  } catch (err) {
    io.stderr.write(`memory: ${errorMessage(err).split('\n').join(' ')}\n`);
  }
  return 0;
}

/** Codex's `notify` argument: `{"type":"agent-turn-complete","thread-id":…,"cwd":…}`; other types are not ours. */
export function codexNotification(arg: string | undefined): HookInput | undefined {
  if (!arg) return undefined;
  let v: unknown;
  try {
    v = JSON.parse(arg);
  } catch {
    return undefined;
  }
  if (typeof v !== 'object' || v === null) return undefined;
  const o = v as Record<string, unknown>;
  if (o.type !== 'agent-turn-complete') return undefined;
  const id = o['thread-id'] ?? o.thread_id;
  return {
    ...(typeof id === 'string' ? { session_id: id } : {}),
    ...(typeof o.cwd === 'string' ? { cwd: o.cwd } : {}),
    hook_event_name: 'Stop',
  };
}
