/**
 * A door into Codex's own memory: Codex (0.171) consolidates its memories from
 * `$CODEX_HOME/memories/extensions/<name>/instructions.md`, read first when it interprets what it
 * remembers. Ours says that every past session is kept verbatim and searchable, how to search it
 * (the command, the MCP tool), and when. Written by `install --codex` (the same bytes again change
 * nothing), removed by `uninstall --codex` with its folder and nothing else.
 */
import { existsSync, mkdirSync, readFileSync, rmdirSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { writeKeepingMode } from '../../config/paths.js';
import { commandPrefix, MCP_NAME, type SetupDeps, type SetupMode } from '../setup.js';

export const EXTENSION_NAME = 'memory-engine';

/** Marks the file as ours: uninstall removes only a file that carries it. */
const MARK = '<!-- memory-engine: written by `memory install --codex`; `memory uninstall --codex` removes it -->';

export function extensionPath(codexHome: string): string {
  return join(codexHome, 'memories', 'extensions', EXTENSION_NAME, 'instructions.md');
}

export function renderExtension(d: Pick<SetupDeps, 'nodePath' | 'mainJs' | 'configArg'>): string {
  const cmd = commandPrefix(d);
  return [
    MARK,
    '# memory-engine: every past session, verbatim and searchable',
    '',
    'Beside these memories, memory-engine keeps every question and answer of every past Codex and',
    'Claude Code session of this person — on all of their machines, word for word, never summarised —',
    'and finds them again by keywords and meaning (English and Japanese). It is the record of what was',
    'actually said; the memories here are summaries of it.',
    '',
    '## How to search it',
    '',
    `- The MCP tool \`memory_search\` (server "${MCP_NAME}"): a query in the person's words (a time in it,`,
    '  "last week", "in March", "last time" for the newest, is understood); `project`, `since`/`until` (2026-03-01, or an age like 30d)',
    '  narrow it; `file` (src/checkout.ts) keeps the sessions that worked on that file. With no query,',
    '  `file` or `since`/`until` list their memories, newest first; `memory_show` gives one memory whole.',
    `- Or the command: \`${cmd} search "<what to look for>"\` (\`--json\` for structured output,`,
    '  `--project <name>`, `--since 2026-03-01`, `--file src/checkout.ts`).',
    '',
    '## When to search it',
    '',
    '- Before deciding something again that may have been decided before (a design, a fix, a setting).',
    '- When the person refers to earlier work: "last time", "as we discussed", "the fix from March".',
    '- When a summary here is not enough and the exact words, command or error matter.',
    '- Before changing a file whose history matters: what earlier sessions decided about it.',
    '',
    'What it returns is reference material from earlier sessions, dated and attributed to the machine',
    '(and, for a team, the teammate) it came from: check it against the code as it is now.',
    '',
  ].join('\n');
}

/** Write (or remove) the extension; lines saying what changed. */
export function setupCodexMemoryExtension(codexHome: string, mode: SetupMode, d: SetupDeps): string[] {
  const path = extensionPath(codexHome);
  const verb = d.dryRun ? 'would ' : '';
  const present = existsSync(path) ? readFileSync(path, 'utf8') : undefined;
  if (mode === 'install') {
    const text = renderExtension(d);
    if (present === text) return [`${path}: Codex memory extension already written, unchanged`];
    if (present !== undefined && !present.startsWith(MARK)) return [`${path} is not memory-engine's: kept as it is (remove it, and install again, for ours)`];
    if (!d.dryRun) {
      mkdirSync(dirname(path), { recursive: true });
      writeKeepingMode(path, text);
    }
    return [`${verb}write the Codex memory extension ${path} (tells Codex's own memory how to search every past session)`];
  }
  if (present === undefined || !present.startsWith(MARK)) return [`${path}: no Codex memory extension of ours to remove`];
  if (d.dryRun) return [`would remove the Codex memory extension ${path}`];
  rmSync(path);
  // Its folder too when nothing else is in it; never the extensions folder itself.
  try {
    rmdirSync(dirname(path));
  } catch {
    /* not empty: someone put something there */
  }
  return [`removed the Codex memory extension ${path}`];
}
