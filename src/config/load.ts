/**
 * Config = defaults ← config.toml ← config.local.toml ← MEMORY_* environment.
 * Relative paths resolve against the folder of the file that set them (env: the cwd).
 */
import { chmodSync, copyFileSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import { homedir, hostname } from 'node:os';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { parse as parseToml } from 'smol-toml';
import { UserError, errorMessage } from '../errors.js';
import { configFileFor } from './paths.js';
import { SCHEMA, type Config, type KeySpec } from './schema.js';
import { checkValue, parseEnvValue, sanitizeName, specFor, validateLayer, type Problem } from './validate.js';

export { configFileFor, packageRoot } from './paths.js';

export interface LoadOptions {
  /** `--config`; falls back to MEMORY_CONFIG, then <checkout>/config.toml. */
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

function expandPath(p: string, base: string, home: string): string {
  if (p === '') return p;
  if (p === '~') return home;
  if (p.startsWith('~/')) return join(home, p.slice(2));
  return isAbsolute(p) ? p : resolve(base, p);
}

function readLayer(file: string): { doc: Record<string, unknown> } {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new UserError(`cannot read config file ${file}: ${errorMessage(err)}`);
  }
  try {
    return { doc: parseToml(text) as Record<string, unknown> };
  } catch (err) {
    throw new UserError(`${file}: invalid TOML: ${errorMessage(err).split('\n')[0]}`, 'fix the syntax, or move the file away to use the defaults');
  }
}

export function loadConfig(opts: LoadOptions = {}): Loaded {
  const env = opts.env ?? process.env;
  const cwd = opts.cwd ?? process.cwd();
  const home = opts.home ?? env.HOME ?? homedir();
  const place = configFileFor(opts.configPath, env, cwd);
  const { file: mainFile, explicit } = place;
  // A checkout that moves into a new home brings its settings along (this machine's name
  // keeps its files; the shared settings and the memory remote stay as they were).
  if (place.home) mkdirSync(place.home, { recursive: true, mode: 0o700 }); // this machine's settings are written there at first use
  if (place.home && place.legacy) adoptLegacySettings(place.legacy, place.home);
  if (explicit && !existsSync(mainFile)) {
    throw new UserError(`config file not found: ${mainFile}`, 'check --config / MEMORY_CONFIG');
  }
  const baseDir = dirname(mainFile);
  const localFile = join(baseDir, 'config.local.toml');

  const values = new Map<string, unknown>();
  const pathBase = new Map<string, string>();
  const errors: Problem[] = [];
  const warnings: Problem[] = [];
  const sources: string[] = [];

  for (const file of [mainFile, localFile]) {
    if (!existsSync(file)) continue;
    const { doc } = readLayer(file);
    const res = validateLayer(doc, file);
    errors.push(...res.errors);
    warnings.push(...res.warnings);
    for (const [k, v] of res.layer) {
      values.set(k, v);
      pathBase.set(k, dirname(file));
    }
    sources.push(file);
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
        if (problem) errors.push({ file: `environment ${name}`, key: dotted, message: problem });
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
    const lines = errors.map((e) => `  ${e.file}: ${e.key}: ${e.message}`);
    throw new UserError(`invalid configuration:\n${lines.join('\n')}`, 'fix the values above (see config.toml for every key and its type)');
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
  const embedding = out.embedding as Record<string, unknown>;
  if (!embedding.local_model_path) embedding.local_model_path = defaultModelCache(env, home);
  // A model given as a relative folder (./models/x) resolves like a path; hub ids stay as they are.
  const model = embedding.model as string;
  if (model.startsWith('.') || model.startsWith('~') || isAbsolute(model)) {
    embedding.model = expandPath(model, pathBase.get('embedding.model') ?? baseDir, home);
  }

  const config = { ...(out as unknown as Omit<Config, 'sources' | 'baseDir'>), sources, baseDir } as Config;
  if (place.home) config.home = place.home;
  if (place.legacy) config.legacy = place.legacy;
  return { config, warnings, machineNameDefaulted };
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
