/**
 * Config = defaults ← config.toml ← config.local.toml ← MEMORY_* environment.
 * Relative paths resolve against the folder of the file that set them (env: the cwd).
 */
import { accessSync, chmodSync, constants, copyFileSync, existsSync, mkdirSync, readFileSync, statSync } from 'node:fs';
import { homedir, hostname } from 'node:os';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { HealthError, UserError, errorMessage } from '../errors.js';
import { memoryHomeFor } from '../home/place.js';
import { refuseProjectHome } from '../home/repository.js';
import { configFileFor, localLayerOf } from './paths.js';
import { SCHEMA, type Config, type KeySpec, type TeamConfig } from './schema.js';
import { isSharedSettings, readLayerText, sharedLayer, type SettingsProblem } from './shared.js';
import { checkValue, expectedType, lettersBeyondAscii, parseEnvValue, sanitizeName, specFor, type Problem } from './validate.js';
import { machineName, projectName } from '../project/label.js';

export { configFileFor, packageRoot } from './paths.js';

export interface LoadOptions {
  /** `--config`; falls back to MEMORY_CONFIG, then the memory home's config.toml. */
  configPath?: string;
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  home?: string;
  host?: string;
}

export interface Loaded {
  config: Config;
  warnings: Problem[];
  /** No file or variable set machine_name: it holds the bare hostname until fixed (cli/machine-name.ts). */
  machineNameDefaulted: boolean;
}

export function envNames(dotted: string): string[] {
  const [section, key] = dotted.split('.') as [string, string];
  const names = [`MEMORY_${section}_${key}`.toUpperCase()];
  if (section === 'general') names.push(`MEMORY_${key}`.toUpperCase());
  return names;
}

/**
 * Every variable that decides where memory is and how it behaves: the memory home and the
 * configuration, the folders they default to, the agents' homes, how git reaches a remote (and
 * through which proxy), and each setting's `MEMORY_*` names. An agent that gives its MCP server
 * only a few variables of its own choosing (Codex: HOME, PATH and a few more) is told to pass
 * these on (`env_vars`), so the server reads the settings the person's shell gave the hooks.
 */
export function settingVariables(): string[] {
  const place = ['MEMORY_HOME', 'MEMORY_CONFIG', 'XDG_DATA_HOME', 'XDG_CACHE_HOME', 'USERPROFILE', 'APPDATA', 'LOCALAPPDATA', 'CODEX_HOME', 'CLAUDE_CONFIG_DIR'];
  const git = ['GIT_CONFIG_GLOBAL', 'GIT_CONFIG_SYSTEM', 'GIT_CONFIG_NOSYSTEM', 'GIT_SSH', 'GIT_SSH_COMMAND', 'GIT_ASKPASS', 'SSH_ASKPASS', 'SSH_AUTH_SOCK', 'GIT_SSL_CAINFO'];
  // A proxy git goes through to the remote (a team's, which the MCP server reads before a search).
  const proxy = ['HTTPS_PROXY', 'HTTP_PROXY', 'ALL_PROXY', 'NO_PROXY', 'https_proxy', 'http_proxy', 'all_proxy', 'no_proxy'];
  const settings = Object.entries(SCHEMA).flatMap(([section, keys]) => Object.keys(keys).flatMap((key) => envNames(`${section}.${key}`)));
  return [...place, ...git, ...proxy, ...settings];
}

function expandPath(p: string, base: string, home: string): string {
  if (p === '') return p;
  if (p === '~') return home;
  if (p.startsWith('~/')) return join(home, p.slice(2));
  return isAbsolute(p) ? p : resolve(base, p);
}

function readText(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (err) {
    throw new UserError(`cannot read the config file ${file}: ${errorMessage(err)}`);
  }
}

/**
 * The memory home's folder, made now if it is missing (this machine's settings are written
 * there at first use) — or a clear error naming it and where it was set, when it cannot be
 * one: a file, a folder that cannot be made or written.
 */
export function ensureHomeFolder(home: string, env: NodeJS.ProcessEnv): void {
  const where = env.MEMORY_HOME ? ' (set by MEMORY_HOME)' : '';
  const fix = env.MEMORY_HOME ? `point MEMORY_HOME at a folder of its own that you can write, or unset it to use ${memoryHomeFor({ ...env, MEMORY_HOME: '' })}` : 'make that folder writable for you, or set MEMORY_HOME to a folder of your own';
  const unusable = (why: string) => new HealthError('home', home, `the memory home ${home}${where} cannot be used: ${why}`, fix);
  let st: ReturnType<typeof statSync> | undefined;
  try {
    st = statSync(home);
  } catch {
    /* made below */
  }
  if (st && !st.isDirectory()) throw unusable('it is a file, not a folder');
  if (!st) {
    try {
      mkdirSync(home, { recursive: true, mode: 0o700 });
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      throw unusable(code === 'ENOTDIR' || code === 'EEXIST' ? 'a part of that path is a file' : code === 'EACCES' || code === 'EPERM' || code === 'EROFS' ? `the folder cannot be made (${code}: permission denied)` : `the folder cannot be made (${errorMessage(err)})`);
    }
  }
  try {
    accessSync(home, constants.W_OK | constants.X_OK);
  } catch (err) {
    throw unusable(`it cannot be written (${(err as NodeJS.ErrnoException).code ?? errorMessage(err)})`);
  }
}

/** Type problems in one clean sentence: what was typed, and what the key takes. */
function envProblem(name: string, raw: string, dotted: string, spec: KeySpec, problem: string): Problem {
  const typeWrong = problem.startsWith('expected ');
  return { file: `environment ${name}`, key: dotted, message: typeWrong ? `${name} is ${JSON.stringify(raw)}, but ${dotted} takes ${expectedType(spec)}` : `${name}: ${problem}` };
}

export function loadConfig(opts: LoadOptions = {}): Loaded {
  const env = opts.env ?? process.env;
  const cwd = opts.cwd ?? process.cwd();
  const home = opts.home ?? env.HOME ?? homedir();
  const place = configFileFor(opts.configPath, env, cwd);
  const { file: mainFile, explicit } = place;
  if (place.home) {
    ensureHomeFolder(place.home, env);
    // A project's repository named as the memory home: refused before anything is written there.
    refuseProjectHome(place.home, env);
  }
  // A checkout that moves into a new home brings its settings along (this machine's name
  // keeps its files; the shared settings and the memory remote stay as they were).
  if (place.home && place.legacy) adoptLegacySettings(place.legacy, place.home);
  const localFile = localLayerOf(mainFile);
  // A configuration is there when either of its layers is (or it is a memory home's, made on first use).
  if (explicit && !existsSync(place.named ?? mainFile) && !existsSync(localFile) && !place.home) {
    throw new UserError(`config file not found: ${place.named ?? mainFile}`, 'check --config / MEMORY_CONFIG');
  }
  const baseDir = dirname(mainFile);

  const values = new Map<string, unknown>();
  const pathBase = new Map<string, string>();
  const errors: Problem[] = [];
  const warnings: Problem[] = [];
  const sources: string[] = [];
  let settingsProblem: SettingsProblem | undefined;

  for (const file of [mainFile, localFile]) {
    if (!existsSync(file)) continue;
    const text = readText(file);
    let res = readLayerText(text, file);
    let label = file;
    // The shared settings travel: broken, they never turn memory off here (the last good version applies).
    if (file === mainFile && (res.parseError || res.errors.length > 0) && (isSharedSettings(file) || place.home === dirname(file))) {
      const shared = sharedLayer(file, text);
      res = shared.read;
      settingsProblem = shared.problem;
      label = shared.usedCommit ? `${file} (as committed in ${shared.usedCommit.slice(0, 7)}: the file does not parse)` : `${file} (not applied: it does not parse)`;
    }
    if (res.parseError) {
      throw new UserError(`${file}: invalid TOML${res.parseError.line ? ` at line ${res.parseError.line}` : ''}: ${res.parseError.message}`, 'fix the syntax, or move the file away to use the defaults');
    }
    errors.push(...res.errors);
    warnings.push(...res.warnings);
    for (const [k, v] of res.layer) {
      values.set(k, v);
      pathBase.set(k, dirname(file));
    }
    sources.push(label);
  }

  for (const [section, keys] of Object.entries(SCHEMA)) {
    for (const key of Object.keys(keys)) {
      const dotted = `${section}.${key}`;
      const spec = specFor(dotted) as KeySpec;
      for (const name of envNames(dotted)) {
        const raw = env[name];
        if (raw === undefined) continue;
        const value = parseEnvValue(spec, raw);
        const problem = checkValue(spec, value);
        if (problem) errors.push(envProblem(name, raw, dotted, spec, problem));
        else {
          values.set(dotted, value);
          pathBase.set(dotted, cwd);
          if (!sources.includes(`env:${name}`)) sources.push(`env:${name}`);
        }
        break; // the long name wins over the short one
      }
    }
  }

  if (errors.length > 0) {
    const one = (e: Problem) => (e.file.startsWith('environment ') ? e.message : `${e.file}: ${e.key}: ${e.message}`);
    const message = errors.length === 1 ? `invalid configuration: ${one(errors[0] as Problem)}` : `invalid configuration:\n${errors.map((e) => `  ${one(e)}`).join('\n')}`;
    throw new UserError(message, `fix ${errors.length === 1 ? 'it' : 'them'}; every key and its type are described in config.toml`);
  }

  const out: Record<string, Record<string, unknown>> = {};
  for (const [section, keys] of Object.entries(SCHEMA)) {
    const sec: Record<string, unknown> = {};
    for (const [key, specRaw] of Object.entries(keys)) {
      const spec = specRaw as KeySpec;
      const dotted = `${section}.${key}`;
      let v = values.has(dotted) ? values.get(dotted) : spec.default;
      if (spec.path && typeof v === 'string') v = expandPath(v, pathBase.get(dotted) ?? baseDir, home);
      sec[key] = Array.isArray(v) ? [...v] : v;
    }
    out[section] = sec;
  }
  const general = out.general as Record<string, unknown>;
  const machineNameDefaulted = !general.machine_name;
  if (machineNameDefaulted) general.machine_name = sanitizeName(opts.host ?? hostname());
  if (general.project === '') general.project = undefined;
  // A name in another script goes into file names in IDNA's ASCII form, as a folder of that name would.
  else if (typeof general.project === 'string' && lettersBeyondAscii(general.project)) general.project = projectName(general.project);
  if (!machineNameDefaulted && lettersBeyondAscii(general.machine_name as string)) general.machine_name = machineName(general.machine_name as string);
  const embedding = out.embedding as Record<string, unknown>;
  if (!embedding.local_model_path) embedding.local_model_path = defaultModelCache(env, home);
  // A model given as a relative folder (./models/x) resolves like a path; hub ids stay as they are.
  const model = embedding.model as string;
  if (model.startsWith('.') || model.startsWith('~') || isAbsolute(model)) {
    embedding.model = expandPath(model, pathBase.get('embedding.model') ?? baseDir, home);
  }

  // Teams: the shared layer's, and this machine's own (rare) after them.
  const teams = (values.get('team') as TeamConfig[] | undefined) ?? [];
  const config = { ...(out as unknown as Omit<Config, 'sources' | 'baseDir' | 'file' | 'explicit' | 'teams'>), teams, sources, baseDir, file: mainFile, explicit } as Config;
  if (place.home) config.home = place.home;
  if (place.legacy) config.legacy = place.legacy;
  if (settingsProblem) config.settingsProblem = settingsProblem;
  if (place.named) config.named = place.named;
  return { config, warnings, machineNameDefaulted };
}

/**
 * The `--config` a command started by this one (the capture worker, the model download) or an
 * agent's hook needs to read this same configuration: none for the memory home's own.
 */
export function configArgOf(config: Pick<Config, 'explicit' | 'file'>): string | undefined {
  return config.explicit ? config.file : undefined;
}

/**
 * Settings files of a checkout that is moving into a new home, copied where the home has none
 * yet: `config.toml` (what every machine shares) and `config.local.toml` (this machine's name
 * and memory remote). Never over a file the home already has.
 */
function adoptLegacySettings(checkout: string, home: string): void {
  for (const name of ['config.toml', 'config.local.toml']) {
    const from = join(checkout, name);
    const to = join(home, name);
    if (!existsSync(from) || existsSync(to)) continue;
    try {
      mkdirSync(home, { recursive: true, mode: 0o700 });
      copyFileSync(from, to);
      chmodSync(to, 0o600);
    } catch {
      /* the upgrade says what it could not do */
    }
  }
}

/** User-level cache so reinstalling node_modules does not download the model again. */
function defaultModelCache(env: NodeJS.ProcessEnv, home: string): string {
  if (process.platform === 'win32' && env.LOCALAPPDATA) return join(env.LOCALAPPDATA, 'memory-engine', 'models');
  if (process.platform === 'darwin') return join(home, 'Library', 'Caches', 'memory-engine', 'models');
  return join(env.XDG_CACHE_HOME || join(home, '.cache'), 'memory-engine', 'models');
}
