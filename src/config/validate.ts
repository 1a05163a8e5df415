/**
 * Pure validation of one parsed TOML layer: returns values and problems, never throws,
 * never prints. `load.ts` merges layers and decides what is fatal.
 */
import { formatProblem } from '../privacy/formats.js';
import { DEFAULT_REVIEW_DELAY_H, FILE_NAME_SAFE, SCHEMA, type KeySpec, type KeyType, type TeamConfig } from './schema.js';

export interface Problem {
  file: string;
  key: string;
  message: string;
}

export type Layer = Map<string, unknown>; // "section.key" → value

const TYPE_NAMES: Record<KeyType, string> = {
  string: 'a string',
  integer: 'an integer',
  number: 'a number',
  boolean: 'true or false',
  'string[]': 'an array of strings',
};

export function specFor(dotted: string): KeySpec | undefined {
  const [section, key] = dotted.split('.');
  const sec = (SCHEMA as Record<string, Record<string, KeySpec>>)[section ?? ''];
  return sec?.[key ?? ''];
}

/** What a key takes, in words: `an integer`, `true or false`. */
export function expectedType(spec: KeySpec): string {
  return TYPE_NAMES[spec.type];
}

export function checkValue(spec: KeySpec, value: unknown): string | undefined {
  const expected = TYPE_NAMES[spec.type];
  switch (spec.type) {
    case 'string':
      if (typeof value !== 'string') return `expected ${expected}, got ${describe(value)}`;
      // A project or machine named in another script (決済, 会社): kept in IDNA's ASCII form (config/load.ts), shown as written.
      if (spec.name && lettersBeyondAscii(value)) return undefined;
      if (spec.name && value !== '' && !FILE_NAME_SAFE.test(value)) {
        return `"${value}" is used in file names: use only letters, digits, '.', '_' and '-', or a name in another script`;
      }
      if (spec.name && (value === '.' || value === '..')) return `"${value}" is used in file names: it cannot be "." or ".."`;
      return undefined;
    case 'boolean':
      return typeof value === 'boolean' ? undefined : `expected ${expected}, got ${describe(value)}`;
    case 'integer':
    case 'number': {
      const n = typeof value === 'bigint' ? Number(value) : value;
      if (typeof n !== 'number' || !Number.isFinite(n)) return `expected ${expected}, got ${describe(value)}`;
      if (spec.type === 'integer' && !Number.isInteger(n)) return `expected ${expected}, got ${n}`;
      if (spec.min !== undefined && n < spec.min) return `must be at least ${spec.min}, got ${n}`;
      return undefined;
    }
    case 'string[]':
      if (!(Array.isArray(value) && value.every((v) => typeof v === 'string'))) return `expected ${expected}, got ${describe(value)}`;
      return spec.secretFormats ? value.map(formatProblem).find((p) => p !== undefined) : undefined;
  }
}

function describe(v: unknown): string {
  if (Array.isArray(v)) return 'an array';
  if (v === null) return 'null';
  if (typeof v === 'string') return `the string "${v.length > 40 ? `${v.slice(0, 40)}…` : v}"`;
  if (typeof v === 'object') return 'a table';
  return `${typeof v} ${String(v)}`;
}

/** Flatten a parsed TOML document into "section.key" values, reporting unknown and ill-typed keys. */
export function validateLayer(doc: Record<string, unknown>, file: string): { layer: Layer; errors: Problem[]; warnings: Problem[] } {
  const layer: Layer = new Map();
  const errors: Problem[] = [];
  const warnings: Problem[] = [];
  for (const [section, table] of Object.entries(doc)) {
    if (section === 'team') {
      const teams = validateTeams(table, file, errors, warnings);
      if (teams) layer.set('team', teams);
      continue;
    }
    if (!(section in SCHEMA)) {
      warnings.push({ file, key: section, message: `unknown section [${section}] (ignored)` });
      continue;
    }
    if (typeof table !== 'object' || table === null || Array.isArray(table)) {
      errors.push({ file, key: section, message: `expected a [${section}] table` });
      continue;
    }
    for (const [key, value] of Object.entries(table)) {
      const dotted = `${section}.${key}`;
      const spec = specFor(dotted);
      if (!spec) {
        warnings.push({ file, key: dotted, message: 'unknown key (ignored)' });
        continue;
      }
      const problem = checkValue(spec, value);
      if (problem) errors.push({ file, key: dotted, message: problem });
      else layer.set(dotted, typeof value === 'bigint' ? Number(value) : value);
    }
  }
  return { layer, errors, warnings };
}

const TEAM_KEYS = new Set(['name', 'remote', 'handle', 'projects', 'review_delay_h']);

/** `[[team]]` tables: each with a file-name-safe name and handle, a remote, its shared projects, a review delay. */
function validateTeams(value: unknown, file: string, errors: Problem[], warnings: Problem[]): TeamConfig[] | undefined {
  if (!Array.isArray(value)) {
    errors.push({ file, key: 'team', message: 'expected [[team]] tables (an array of tables)' });
    return undefined;
  }
  const out: TeamConfig[] = [];
  const names = new Set<string>();
  value.forEach((t, i) => {
    const key = (k: string) => `team[${i}].${k}`;
    if (typeof t !== 'object' || t === null || Array.isArray(t)) {
      errors.push({ file, key: `team[${i}]`, message: 'expected a [[team]] table' });
      return;
    }
    const o = t as Record<string, unknown>;
    for (const k of Object.keys(o)) if (!TEAM_KEYS.has(k)) warnings.push({ file, key: key(k), message: 'unknown key (ignored)' });
    const str = (k: string, safe: boolean): string | undefined => {
      const v = o[k];
      if (typeof v !== 'string' || v === '') {
        errors.push({ file, key: key(k), message: `expected a string, got ${v === undefined ? 'nothing' : JSON.stringify(v)}` });
        return undefined;
      }
      if (safe && (!FILE_NAME_SAFE.test(v) || v === '.' || v === '..')) {
        errors.push({ file, key: key(k), message: `"${v}" is used in folder and file names: use only letters, digits, '.', '_' and '-'` });
        return undefined;
      }
      return v;
    };
    const name = str('name', true);
    const remote = str('remote', false);
    const handle = str('handle', true);
    const projects = o.projects === undefined ? [] : o.projects;
    if (!Array.isArray(projects) || !projects.every((p) => typeof p === 'string')) errors.push({ file, key: key('projects'), message: 'expected an array of strings' });
    const delayRaw = o.review_delay_h === undefined ? DEFAULT_REVIEW_DELAY_H : typeof o.review_delay_h === 'bigint' ? Number(o.review_delay_h) : o.review_delay_h;
    if (typeof delayRaw !== 'number' || !Number.isFinite(delayRaw) || delayRaw < 0) errors.push({ file, key: key('review_delay_h'), message: `expected hours, 0 or more, got ${JSON.stringify(o.review_delay_h)}` });
    if (!name || !remote || !handle || !Array.isArray(projects) || typeof delayRaw !== 'number' || delayRaw < 0) return;
    if (names.has(name)) {
      errors.push({ file, key: key('name'), message: `team "${name}" is named twice` });
      return;
    }
    names.add(name);
    out.push({ name, remote, handle, projects: [...new Set(projects as string[])], review_delay_h: delayRaw });
  });
  return out;
}

/** Parse an environment variable's text by the key's type. */
export function parseEnvValue(spec: KeySpec, text: string): unknown {
  switch (spec.type) {
    case 'boolean':
      if (/^(1|true|yes|on)$/i.test(text)) return true;
      if (/^(0|false|no|off)$/i.test(text)) return false;
      return text;
    case 'integer':
    case 'number':
      // Text that is no number stays text, so the problem quotes what was typed ("five"), not NaN.
      return text.trim() === '' || !Number.isFinite(Number(text)) ? text : Number(text);
    case 'string[]':
      return text
        .split(',')
        .map((s) => s.trim())
        .filter((s) => s.length > 0);
    case 'string':
      return text;
  }
}

/** Hostnames often hold dots or unicode; keep them recognisable but file-name safe. */
/** A letter or digit that stays outside ASCII once its accents are taken off (決, メ, П; not é). */
const BEYOND_ASCII = /(?![\x00-\x7f])[\p{L}\p{N}]/u;

/** Whether a name holds letters or digits of a script other than Latin (accented Latin letters are Latin). */
export function lettersBeyondAscii(raw: string): boolean {
  return BEYOND_ASCII.test(raw.normalize('NFKD').replace(/\p{M}/gu, ''));
}

export function sanitizeName(raw: string): string {
  const cleaned = raw
    .normalize('NFKD')
    .replace(/[^A-Za-z0-9._-]+/g, '-')
    .replace(/^[-.]+|[-.]+$/g, '');
  return cleaned.length > 0 ? cleaned.slice(0, 64) : 'machine';
}
