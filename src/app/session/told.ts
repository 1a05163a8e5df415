/**
 * Things that turn memory off or weaken it are told to the person inside the agent (a
 * SessionStart `systemMessage`), at most once a day per cause: often enough to be seen, never
 * a nag. The record is a small file in the working folder beside the config (fs only: it is
 * used where the configuration itself could not be read).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ensurePrivateDir, writeKeepingMode } from '../../config/paths.js';
import { localDay } from '../../days.js';

function toldPath(workDir: string): string {
  return join(workDir, 'told-today.json');
}

/** True when `cause` was not told today (and records it as told now). */
export function firstTodayFor(workDir: string, cause: string, now: Date): boolean {
  const day = localDay(now.getTime());
  let told: Record<string, string> = {};
  try {
    told = JSON.parse(readFileSync(toldPath(workDir), 'utf8')) as Record<string, string>;
  } catch {
    /* first time, or damaged: tell */
  }
  if (told[cause] === day) return false;
  told[cause] = day;
  try {
    ensurePrivateDir(workDir);
    writeKeepingMode(toldPath(workDir), `${JSON.stringify(told)}\n`);
  } catch {
    /* cannot record: telling again tomorrow or next time is the lesser harm */
  }
  return true;
}

/** A short, stable name for a cause, from its message (paths and numbers kept: another file is another cause). */
export function causeOf(message: string): string {
  let h = 0;
  for (const ch of message) h = (Math.imul(h, 31) + (ch.codePointAt(0) ?? 0)) | 0;
  return `c${(h >>> 0).toString(36)}`;
}
