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

/** The tools that run a shell command: Claude Code's Bash, Codex's (`Bash` in its hook input), and the names other versions give it. */
export const SHELL_TOOLS = /^(?:Bash|shell|shell_command|local_shell|exec_command)$/;
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
 * A simple command's words as a move: `mv …` or `git … mv …` (git's own options before `mv` read:
 * `-C <dir>`, several adding up, and `-c <key=value>`), the folder its names are read from, and
 * its arguments; undefined when it is not one or a word is not known (a variable, an operator).
 */
function moveCall(words: ReadonlyArray<string | undefined>, dir: string): { at: string; args: string[] } | undefined {
  if (words.some((w) => w === undefined || w.includes(UNKNOWN))) return undefined;
  const w = words as string[];
  if (w[0] === 'mv') return { at: dir, args: w.slice(1) };
  if (w[0] !== 'git') return undefined;
  let at = dir;
  let i = 1;
  for (; i < w.length; i++) {
    const word = w[i] as string;
    if (word === '-C' && w[i + 1] !== undefined) at = resolve(at, w[++i] as string);
    else if (word === '-c' && w[i + 1] !== undefined) i++;
    else if (!word.startsWith('-')) break;
  }
  return w[i] === 'mv' ? { at, args: w.slice(i + 1) } : undefined;
}

/**
 * What a command that has run moved (`git mv a b`, `git -C dir mv a b`, `mv a b`, `mv a b c dir/`,
 * `mv -t dir a b`, a `cd` followed):
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
    const words = cmd;
    cmd = [];
    const [w0] = words;
    if (w0 === 'cd' || w0 === 'pushd') {
      const to = words[1];
      dir = to === undefined || to.includes(UNKNOWN) ? '\0' : resolve(dir, to);
      return;
    }
    const call = moveCall(words, dir);
    if (!call || call.at.includes('\0')) return;
    const { at, args } = call;
    // Options aside (`-f`, `-v`, `-k`), until a `--` after which every word is a name; mv's
    // `-t DIR` / `--target-directory=DIR` names the folder first, `-T` a destination that is no folder.
    let into: string | undefined;
    let noFolder = false;
    const names: string[] = [];
    for (let i = 0, dashes = false; i < args.length; i++) {
      const a = args[i] as string;
      if (dashes || !a.startsWith('-') || a === '-') names.push(a);
      else if (a === '--') dashes = true;
      else if (a === '--target-directory') into = args[++i];
      else if (a.startsWith('--target-directory=')) into = a.slice('--target-directory='.length);
      else if (a === '--no-target-directory') noFolder = true;
      else if (!a.startsWith('--')) {
        // A group of short options (`-vf`, `-vt lib`, `-tlib`): a `t` takes the rest, or the next word.
        const t = a.indexOf('t');
        if (t > 0) into = a.length > t + 1 ? a.slice(t + 1) : args[++i];
        if (a.slice(1, t > 0 ? t : undefined).includes('T')) noFolder = true;
      }
    }
    if (into !== undefined && into.length === 0) return;
    const dest = resolve(at, into ?? (names[names.length - 1] as string));
    const sources = into !== undefined ? names : names.slice(0, -1);
    if (sources.length === 0) return;
    for (const name of sources) {
      const from = resolve(at, name);
      if (existsSync(from)) continue;
      // Into a folder that was there (`mv a.ts lib/`, `mv -t lib a.ts`), or to a new name.
      const inside = join(dest, basename(from));
      const to = into !== undefined ? inside : !noFolder && isDir(dest) && (sources.length > 1 || existsSync(inside)) ? inside : dest;
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
