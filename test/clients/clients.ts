/**
 * The real agent clients, installed from the npm registry into a cache folder outside the
 * repository (Claude Code's package is about 380 MB: never a dependency every contributor
 * downloads). `npm run clients:install` puts them there; .ci/run does it before the tests; a
 * clone without them skips the real-client tests and says why.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

/** The versions the tests were written against (the facts were verified on these). */
export const CLIENTS = {
  claude: { pkg: '@anthropic-ai/claude-code', version: '2.1.332', bin: 'claude' },
  codex: { pkg: '@openai/codex', version: '0.171.0', bin: 'codex' },
} as const;

export type ClientName = keyof typeof CLIENTS;

/** `MEMORY_TEST_CLIENTS`, else `~/.cache/memory-engine/test-clients` (the real user's, not a test HOME). */
export function clientsRoot(env: NodeJS.ProcessEnv = process.env): string {
  return env.MEMORY_TEST_CLIENTS || join(homedir(), '.cache', 'memory-engine', 'test-clients');
}

export function clientBin(name: ClientName, env: NodeJS.ProcessEnv = process.env): string {
  const c = CLIENTS[name];
  return join(clientsRoot(env), `${name}-${c.version}`, 'node_modules', '.bin', c.bin);
}

/** Why a real-client test cannot run here, or undefined when the client is installed. */
export function clientMissing(name: ClientName): string | undefined {
  const bin = clientBin(name);
  if (existsSync(bin)) return undefined;
  return `${CLIENTS[name].pkg}@${CLIENTS[name].version} is not installed in ${clientsRoot()} (run \`npm run clients:install\`, or set MEMORY_TEST_CLIENTS)`;
}

export interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Run a program without blocking the event loop (the stand-in model server answers from this
 * process), bounded in time; stdin closed, as a scheduler or a script would run it.
 */
export function runAsync(cmd: string, args: string[], opts: { cwd: string; env: NodeJS.ProcessEnv; timeoutMs?: number }): Promise<Ran> {
  // Under faketime (the suite at a new month), an agent's processes must not attach to the
  // wrapper's shared clock: Claude Code's then fail in libfaketime ("sem_open failed … File
  // exists", measured) and Codex's hooks never run. Without it each process starts its own
  // faked clock at the same instant, as every faketime process does.
  const env = { ...opts.env };
  delete env.FAKETIME_SHARED;
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { cwd: opts.cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs ?? 120_000);
    child.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** Hook events of a `claude -p --output-format stream-json --verbose --include-hook-events` run. */
export interface HookEvent {
  event: string;
  outcome?: string;
  exit_code?: number;
  stdout?: string;
  stderr?: string;
}

export function hookResponses(streamJson: string): HookEvent[] {
  const out: HookEvent[] = [];
  for (const line of streamJson.split('\n')) {
    if (!line.startsWith('{')) continue;
    const e = JSON.parse(line) as { type?: string; subtype?: string; hook_event?: string; outcome?: string; exit_code?: number; stdout?: string; stderr?: string };
    if (e.type === 'system' && e.subtype === 'hook_response' && e.hook_event) {
      out.push({ event: e.hook_event, ...(e.outcome ? { outcome: e.outcome } : {}), ...(e.exit_code !== undefined ? { exit_code: e.exit_code } : {}), ...(e.stdout ? { stdout: e.stdout } : {}), ...(e.stderr ? { stderr: e.stderr } : {}) });
    }
  }
  return out;
}

/** The final assistant text of such a run (its `result` line). */
export function resultText(streamJson: string): string | undefined {
  for (const line of streamJson.split('\n').reverse()) {
    if (!line.startsWith('{')) continue;
    const e = JSON.parse(line) as { type?: string; result?: string };
    if (e.type === 'result') return e.result;
  }
  return undefined;
}

/**
 * A machine's memory files on the remote's memory branch, every month of them joined, or
 * undefined until pushed. Every month: an agent's clock may not be the test's (Codex is a static
 * binary that faketime does not reach, so its turns are dated by the real clock).
 */
export function memoryFileOnRemote(remote: string, machine: string, branch = 'memories'): string | undefined {
  const list = spawnSync('git', ['--git-dir', remote, 'ls-tree', '--name-only', `${branch}:export`], { encoding: 'utf8' });
  if (list.status !== 0) return undefined;
  const files = list.stdout.split('\n').filter((f) => f.endsWith(`_${machine}.jsonl`));
  if (files.length === 0) return undefined;
  return files.map((f) => spawnSync('git', ['--git-dir', remote, 'show', `${branch}:export/${f}`], { encoding: 'utf8' }).stdout).join('');
}

/** The same, from a machine's memory home (what it holds before any push). */
export function memoryFilesInHome(home: string, machine: string): string {
  const dir = join(home, 'export');
  if (!existsSync(dir)) return '';
  return readdirSync(dir)
    .filter((f) => f.endsWith(`_${machine}.jsonl`))
    .map((f) => readFileSync(join(dir, f), 'utf8'))
    .join('');
}

export interface Captured {
  id: string;
  updated_at: string;
  deleted?: boolean;
  question: string;
  answer: string;
  source: string;
  project: string;
}

export function captured(text: string | undefined): Captured[] {
  return (text ?? '').split('\n').filter(Boolean).map((l) => JSON.parse(l) as Captured);
}

/**
 * Each memory at the version that wins (DESIGN: the greatest `updated_at`, then the later line),
 * forgotten ones left out. A turn that grew after a capture has both versions in its file; which of
 * them a run shows depends on when its capture worker ran.
 */
export function winning(records: Captured[]): Captured[] {
  const byId = new Map<string, Captured>();
  for (const r of records) {
    const held = byId.get(r.id);
    if (!held || r.updated_at >= held.updated_at) byId.set(r.id, r);
  }
  return [...byId.values()].filter((r) => !r.deleted);
}

/** Poll until `check` holds (a detached worker finishing its commit and push), at most `ms`. */
export async function eventually<T>(check: () => T | undefined, ms = 60_000, every = 250): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    const v = check();
    if (v !== undefined) return v;
    if (Date.now() > until) throw new Error(`not within ${ms} ms`);
    await new Promise((r) => setTimeout(r, every));
  }
}
