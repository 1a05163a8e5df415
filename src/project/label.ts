/**
 * A project's (or machine's) name as a word safe in file names, and as people read it. Pure;
 * names.ts derives a repository's names from these, and every front end shows a name through
 * projectLabel (machineLabel).
 */
import { domainToASCII, domainToUnicode } from 'node:url';
import { lettersBeyondAscii, sanitizeName } from '../config/validate.js';

/** The longest name: a name goes into file names (a team's `<project>/` folder). */
const NAME_MAX = 64;


/**
 * The project name of a folder's or repository's name, file-name safe (`[A-Za-z0-9._-]`). A
 * name in ASCII or Latin letters with accents is kept as it was (`my app` → `my-app`). A name
 * with other letters (`決済`, `メモ`, `Проект`) would lose them all — every such folder would be
 * one project — so its letters and digits go into IDNA's ASCII form, which gives them back for
 * display (projectLabel): `決済` → `xn--1tw26a`. Too long for a name: the words that fit.
 */
export function projectName(raw: string): string {
  if (!lettersBeyondAscii(raw)) return sanitizeName(raw);
  return encodedFit(raw.normalize('NFKC').match(/[\p{L}\p{N}]+/gu) ?? []) ?? sanitizeName(raw);
}

/** The words in IDNA's ASCII form, as many as fit in a name (one long word: its first characters). */
function encodedFit(words: string[], suffix?: string): string | undefined {
  const tail = suffix === undefined ? [] : [suffix];
  for (let n = words.length; n > 0; n--) {
    const a = encoded1([...words.slice(0, n), ...tail].join('-'));
    if (a && a.length <= NAME_MAX) return a;
  }
  const first = Array.from(words[0] ?? '');
  for (let n = Math.min(first.length, NAME_MAX); n > 0; n--) {
    const a = encoded1([first.slice(0, n).join(''), ...tail].join('-'));
    if (a && a.length <= NAME_MAX) return a;
  }
  return undefined;
}

/** IDNA's ASCII form of one label, when it is one (a–z, 0–9, '-'). */
function encoded1(label: string): string | undefined {
  const a = domainToASCII(label);
  return /^[a-z0-9-]+$/.test(a) ? a : undefined;
}

/** A name with a suffix (`-local`, a hash): inside the encoded form when the name is one, so it still reads back. */
export function suffixed(name: string, suffix: string): string {
  const label = projectLabel(name);
  if (label === name) return `${name}-${suffix}`;
  return encodedFit(label.split('-'), suffix) ?? `${name}-${suffix}`;
}

/** Whether `given` (typed by the person) names the project stored as `name`: that name, or as people read it. */
export function nameMatches(given: string, name: string): boolean {
  return name === given || projectLabel(name) === given;
}

/** A project name as people read it: `xn--1tw26a` is `決済`; any other name is itself. */
export function projectLabel(name: string): string;
export function projectLabel(name: string | null | undefined): string | null | undefined;
export function projectLabel(name: string | null | undefined): string | null | undefined {
  if (!name || !name.startsWith('xn--')) return name;
  const u = domainToUnicode(name);
  return u && u !== name && lettersBeyondAscii(u) && encoded1(u) === name ? u : name;
}

/**
 * A machine's name, written as a project's: `会社` (a name the person gave it in config.local.toml)
 * goes into file names as `xn--…`, and two machines named in Japanese stay two.
 */
export function machineName(raw: string): string {
  return projectName(raw);
}

/** A machine's name as people read it: `xn--…` is `会社`. */
export function machineLabel(name: string): string {
  return projectLabel(name);
}

/**
 * The name a memory captured as `raw` in folder `cwd` (outside git) has now: when `raw` is what
 * the folder's name gave before projectName (`日記` gave `machine`), the folder's name now; else `raw`.
 */
export function folderNameNow(raw: string, cwd: string): string {
  const folder = cwd.split(/[\\/]/).filter(Boolean).pop();
  if (folder === undefined || raw !== sanitizeName(folder)) return raw;
  return projectName(folder);
}
