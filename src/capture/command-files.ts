/**
 * The files a shell command names: how Codex reads them (`cat src/x.ts`, `sed -n '1,120p' src/x.ts`,
 * `nl -ba src/x.ts | sed -n 40,90p`, `rg -n retry src/x.ts`). A command names nothing for certain,
 * so only what is there counts: each of its words that is a regular file now, seen from where the
 * command ran (a `cd` in it followed), the program itself aside. Options, variables, globs and
 * substitutions never count; at most `max` files, in the order the command names them.
 */
import { existsSync, statSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { parse, type ParseEntry } from 'shell-quote';
import { isDir } from '../project/repository.js';

/** Files taken from one command at most: a command over many files is a search, not a read of one. */
export const COMMAND_FILES_MAX = 3;
/** Words looked at: a long script costs no more than this many stats. */
const WORDS_MAX = 200;
/** Characters of a command read: a file written through a heredoc (100 KB: ~35 ms to parse whole) costs about 3 ms. */
const CHARS_MAX = 4096;
/** A variable or a substitution stands for what is unknown here: a word holding one is no file. */
const UNKNOWN = '\0';
const SHELL = /^(?:\S*\/)?(?:ba|da|k|z)?sh$/;
/** Operators after which the next word starts a command. */
const STARTS = new Set(['|', '||', '&&', ';', ';;', '&', '(', ')', '|&']);
/** Redirections: the word after one names where output goes, not what the command works on. */
const REDIRECTS = new Set(['>', '>>', '<', '>&', '<&', '>|', '&>']);

function isFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/** The command's words: a string as a shell reads it, or an argv (`["bash", "-lc", "cat x"]`: its script). */
function wordsOf(command: unknown): ParseEntry[] | undefined {
  if (Array.isArray(command)) {
    const argv = command.filter((w): w is string => typeof w === 'string');
    const [sh, flag, script] = argv;
    if (sh !== undefined && SHELL.test(sh) && flag !== undefined && /^-[a-z]*c$/.test(flag) && script !== undefined) return wordsOf(script);
    return argv;
  }
  if (typeof command !== 'string' || command.length === 0) return undefined;
  try {
    return parse(command.slice(0, CHARS_MAX), () => UNKNOWN);
  } catch {
    return undefined;
  }
}

/** The regular files a shell command names (absolute paths), at most `max`. */
export function commandFiles(command: unknown, cwd: string, max = COMMAND_FILES_MAX): string[] {
  const words = wordsOf(command);
  if (!words) return [];
  const out: string[] = [];
  let dir = cwd;
  let start = true;
  let cd = false;
  for (const w of words.slice(0, WORDS_MAX)) {
    if (typeof w !== 'string') {
      const op = 'op' in w ? w.op : undefined;
      if (op !== undefined && STARTS.has(op)) start = true;
      continue;
    }
    if (start) {
      start = false;
      cd = w === 'cd' || w === 'pushd';
      continue;
    }
    if (cd) {
      // Into a folder a variable names: where the rest runs is unknown.
      if (w.includes(UNKNOWN)) break;
      dir = resolve(dir, w);
      cd = false;
      continue;
    }
    if (w.includes(UNKNOWN) || w.length === 0 || w.startsWith('-')) continue;
    const path = resolve(dir, w);
    if (!out.includes(path) && isFile(path)) out.push(path);
    if (out.length >= max) break;
  }
  return out;
}

/** A file or a folder moved: where it was and where it is (absolute paths). */
export interface Move {
  from: string;
  to: string;
  folder: boolean;
}

/**
 * What a command that has run moved (`git mv a b`, `mv a b`, `mv a b c dir/`, a `cd` followed):
 * only what the files say now, each source gone and its destination there, a file or a folder;
 * a word the shell would expand (a variable, a glob) makes its command say nothing.
 */
export function commandMoves(command: unknown, cwd: string): Move[] {
  // Nearly every command moves nothing: not parsed again.
  const text = Array.isArray(command) ? command.join(' ') : command;
  if (typeof text !== 'string' || !/(?:^|[^\w-])mv\b/.test(text)) return [];
  const words = wordsOf(command);
  if (!words) return [];
  const out: Move[] = [];
  let dir = cwd;
  // One simple command's words at a time; `undefined` once one is not a word.
  let cmd: Array<string | undefined> = [];
  const end = () => {
    const [w0, w1] = cmd;
    const args = w0 === 'mv' ? cmd.slice(1) : w0 === 'git' && w1 === 'mv' ? cmd.slice(2) : undefined;
    if (w0 === 'cd' || w0 === 'pushd') {
      const to = cmd[1];
      dir = to === undefined || to.includes(UNKNOWN) ? '\0' : resolve(dir, to);
    }
    cmd = [];
    if (!args || dir === '\0' || args.some((a) => a === undefined || a.includes(UNKNOWN))) return;
    // Options aside (`-f`, `-v`, `-k`), until a `--` after which every word is a name.
    const dashes = (args as string[]).indexOf('--');
    const names = (args as string[]).filter((a, i) => (dashes >= 0 && i > dashes) || (i !== dashes && !a.startsWith('-')));
    if (names.length < 2) return;
    const dest = resolve(dir, names[names.length - 1] as string);
    for (const name of names.slice(0, -1)) {
      const from = resolve(dir, name);
      if (existsSync(from)) continue;
      // Into a folder that was there (`mv a.ts lib/`), or to a new name.
      const into = join(dest, basename(from));
      const to = isDir(dest) && (names.length > 2 || existsSync(into)) ? into : dest;
      if (existsSync(to)) out.push({ from, to, folder: isDir(to) });
    }
  };
  let target = false;
  for (const w of words.slice(0, WORDS_MAX)) {
    if (typeof w === 'string') {
      // A redirection's file is not one of the command's words (`git mv a b 2>/dev/null`).
      if (!target) cmd.push(w);
      target = false;
    } else if ('op' in w && STARTS.has(w.op)) end();
    else if ('op' in w && REDIRECTS.has(w.op)) {
      if (/^\d$/.test(cmd[cmd.length - 1] ?? '')) cmd.pop();
      target = true;
    } else cmd.push(undefined);
  }
  end();
  return out;
}
