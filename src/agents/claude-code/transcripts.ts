/** Where Claude Code keeps its session transcripts: ~/.claude/projects/<encoded cwd>/<session>.jsonl. */
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** Claude Code's folder name for a cwd: every character other than a letter or digit becomes '-'. */
export function encodeProjectDir(cwd: string): string {
  return cwd.replace(/[^A-Za-z0-9]/g, '-');
}

export interface TranscriptFile {
  path: string;
  mtimeMs: number;
  size: number;
}

/** Session transcripts of one project folder (not subagent files), newest first. */
export function listTranscripts(projectDir: string): TranscriptFile[] {
  if (!existsSync(projectDir)) return [];
  const out: TranscriptFile[] = [];
  for (const name of readdirSync(projectDir)) {
    if (!name.endsWith('.jsonl') || name.startsWith('agent-')) continue;
    const path = join(projectDir, name);
    const st = statSync(path);
    if (st.isFile()) out.push({ path, mtimeMs: st.mtimeMs, size: st.size });
  }
  return out.sort((a, b) => b.mtimeMs - a.mtimeMs);
}

/** Every project folder under ~/.claude/projects. */
export function listProjectDirs(claudeProjectsDir: string): string[] {
  if (!existsSync(claudeProjectsDir)) return [];
  return readdirSync(claudeProjectsDir)
    .map((n) => join(claudeProjectsDir, n))
    .filter((p) => statSync(p).isDirectory())
    .sort();
}
