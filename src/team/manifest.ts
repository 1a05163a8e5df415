/**
 * `team.toml`, at the root of a team's remote: the team's name, its members (a handle each,
 * and the machines that publish as them), its maintainers, the projects it accepts (a name —
 * the folder its memories live in — and the repository that is that project on every machine),
 * and the embedding model its memories' vectors are made with. Pure: text in, value out.
 */
import { parse, stringify } from 'smol-toml';
import { FILE_NAME_SAFE } from '../config/schema.js';
import { UserError } from '../errors.js';
import { repoKey } from '../project/remote-url.js';

export interface TeamMember {
  handle: string;
  /** Machine names that publish as this member (each machine adds itself on its first publish). */
  machines: string[];
  joined: string;
}

export interface TeamProject {
  /** The folder of its memories in the team remote (`<name>/<handle>/…`). */
  name: string;
  /** The repository key (project/remote-url.ts): `github.com/acme/api`, whatever URL spelling a checkout has. */
  repo: string;
}

export interface TeamManifest {
  name: string;
  model: string;
  maintainers: string[];
  members: TeamMember[];
  projects: TeamProject[];
}

export const MANIFEST_FILE = 'team.toml';

const safe = (v: unknown): v is string => typeof v === 'string' && FILE_NAME_SAFE.test(v) && v !== '.' && v !== '..' && !v.startsWith('-');

/** Parse a team.toml; a clear error naming what is wrong. */
export function parseManifest(text: string, where: string): TeamManifest {
  let doc: Record<string, unknown>;
  try {
    doc = parse(text) as Record<string, unknown>;
  } catch (err) {
    throw new UserError(`${where} does not parse: ${(err as Error).message.split('\n')[0]}`, 'a maintainer fixes team.toml on the team remote');
  }
  if (!safe(doc.name)) throw new UserError(`${where} names no team (name = "…")`, 'this remote holds no team: `memory team create` makes one on an empty remote');
  const list = <T>(v: unknown, f: (x: Record<string, unknown>) => T | undefined): T[] => (Array.isArray(v) ? v.map((x) => (typeof x === 'object' && x !== null ? f(x as Record<string, unknown>) : undefined)).filter((x): x is T => x !== undefined) : []);
  const members = list(doc.member, (m) => (safe(m.handle) ? { handle: m.handle, machines: Array.isArray(m.machines) ? m.machines.filter(safe) : [], joined: typeof m.joined === 'string' ? m.joined : '' } : undefined));
  const projects = list(doc.project, (p) => (safe(p.name) && typeof p.repo === 'string' && p.repo !== '' ? { name: p.name, repo: repoKey(p.repo) } : undefined));
  return {
    name: doc.name,
    model: typeof doc.model === 'string' ? doc.model : '',
    maintainers: Array.isArray(doc.maintainers) ? doc.maintainers.filter(safe) : [],
    members,
    projects,
  };
}

export function renderManifest(m: TeamManifest): string {
  const head = [
    `# memory-engine team "${m.name}": who publishes here and which projects it accepts.`,
    '# Memories live in <project>/<handle>/<YYYY-MM>_<machine>.jsonl; only <handle> writes its folder.',
    '',
  ].join('\n');
  return `${head}${stringify({
    name: m.name,
    model: m.model,
    maintainers: m.maintainers,
    member: m.members.map((x) => ({ handle: x.handle, machines: x.machines, joined: x.joined })),
    project: m.projects.map((p) => ({ name: p.name, repo: p.repo })),
  })}\n`;
}

export function memberOf(m: TeamManifest, handle: string): TeamMember | undefined {
  return m.members.find((x) => x.handle === handle);
}

export function projectNamed(m: TeamManifest, name: string): TeamProject | undefined {
  return m.projects.find((p) => p.name === name);
}
