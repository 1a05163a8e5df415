/**
 * The `[[team]]` tables of the memory home's config.toml, written by `memory team create|join|
 * share|unshare`: the person's teams travel to all of their machines with the shared settings
 * (a `settings: …` commit). Everything else in the file stays byte for byte; the team tables are
 * written again at its end, in order, and the result must parse and validate before it replaces
 * the file.
 */
import { existsSync, readFileSync } from 'node:fs';
import { stringify } from 'smol-toml';
import { UserError } from '../errors.js';
import { writeKeepingMode } from './paths.js';
import type { TeamConfig } from './schema.js';
import { readLayerText } from './shared.js';

/** The text without its `[[team]]` tables (each runs from its header to the next header or the end). */
export function withoutTeamTables(text: string): string {
  const lines = text.split('\n');
  const out: string[] = [];
  let inTeam = false;
  for (const line of lines) {
    if (/^\s*\[\[\s*team\s*\]\]\s*(#.*)?$/.test(line)) {
      inTeam = true;
      continue;
    }
    if (inTeam && /^\s*\[/.test(line)) inTeam = false;
    if (!inTeam) out.push(line);
  }
  return out.join('\n').replace(/\n{3,}$/, '\n\n');
}

/** `[[team]]` tables for these teams. */
export function renderTeams(teams: TeamConfig[]): string {
  if (teams.length === 0) return '';
  const body = stringify({ team: teams.map((t) => ({ name: t.name, remote: t.remote, handle: t.handle, projects: t.projects, review_delay_h: t.review_delay_h })) });
  return `# Teams this person shares memories with (memory team …): every machine of theirs reads them.\n${body.trim()}\n`;
}

/** Replace the teams of a config.toml (made when missing), keeping every other byte. */
export function writeTeams(file: string, teams: TeamConfig[]): void {
  const text = existsSync(file) ? readFileSync(file, 'utf8') : '';
  const rest = withoutTeamTables(text).replace(/\s*$/, '');
  const teamText = renderTeams(teams);
  const next = `${rest}${rest.length > 0 && teamText ? '\n\n' : ''}${teamText}${rest.length > 0 && !teamText ? '\n' : ''}`;
  const check = readLayerText(next, file);
  if (check.parseError || check.errors.length > 0) {
    throw new UserError(`${file} would not parse with the team written into it (${check.parseError?.message ?? check.errors[0]?.message ?? ''}); nothing was changed`, 'fix that file first (memory doctor says what is wrong), then run this again');
  }
  writeKeepingMode(file, next);
}
