/**
 * Record per-machine settings in config.local.toml (git-ignored) without disturbing what a
 * person wrote there: a key is replaced in place or added under its section; comments and
 * every other line stay byte-for-byte.
 */
import { writeKeepingMode } from './paths.js';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse as parseToml } from 'smol-toml';

export function localConfigPath(baseDir: string): string {
  return join(baseDir, 'config.local.toml');
}

const tomlString = (v: string): string => JSON.stringify(v);

/** Set `[section] key = "value"` in a TOML file's text. */
export function setTomlKey(text: string, section: string, key: string, value: string): string {
  const lines = text.length > 0 ? text.replace(/\n$/, '').split('\n') : [];
  const line = `${key} = ${tomlString(value)}`;
  const header = lines.findIndex((l) => l.trim() === `[${section}]`);
  if (header < 0) return `${[...lines, ...(lines.length > 0 ? [''] : []), `[${section}]`, line].join('\n')}\n`;
  let end = lines.length;
  for (let i = header + 1; i < lines.length; i++) {
    if (/^\s*\[/.test(lines[i] as string)) {
      end = i;
      break;
    }
  }
  const keyRe = new RegExp(`^\\s*${key}\\s*=`);
  for (let i = header + 1; i < end; i++) {
    if (keyRe.test(lines[i] as string)) {
      lines[i] = line;
      return `${lines.join('\n')}\n`;
    }
  }
  lines.splice(header + 1, 0, line);
  return `${lines.join('\n')}\n`;
}

/** Write keys into config.local.toml beside the main config; the result must still parse. */
export function writeLocalKeys(baseDir: string, section: string, values: Record<string, string>): string {
  const file = localConfigPath(baseDir);
  let text = existsSync(file) ? readFileSync(file, 'utf8') : '# Settings of this machine only (git-ignored). Written by memory-engine; edit freely.\n';
  for (const [k, v] of Object.entries(values)) text = setTomlKey(text, section, k, v);
  parseToml(text); // never leave a file that the next start cannot read
  writeKeepingMode(file, text);
  return file;
}
