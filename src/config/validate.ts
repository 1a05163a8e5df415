/**
 * Pure validation of one parsed TOML layer: returns values and problems, never throws,
 * never prints. `load.ts` merges layers and decides what is fatal.
 */
import { FILE_NAME_SAFE, SCHEMA, type KeySpec, type KeyType } from './schema.js';

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
      if (spec.fileNameSafe && value !== '' && !FILE_NAME_SAFE.test(value)) {
        return `"${value}" is used in file names: use only letters, digits, '.', '_' and '-'`;
      }
      if (spec.fileNameSafe && (value === '.' || value === '..')) return `"${value}" is used in file names: it cannot be "." or ".."`;
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
      return Array.isArray(value) && value.every((v) => typeof v === 'string')
        ? undefined
        : `expected ${expected}, got ${describe(value)}`;
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
export function sanitizeName(raw: string): string {
  const cleaned = raw
    .normalize('NFKD')
    .replace(/[^A-Za-z0-9._-]+/g, '-')
    .replace(/^[-.]+|[-.]+$/g, '');
  return cleaned.length > 0 ? cleaned.slice(0, 64) : 'machine';
}
