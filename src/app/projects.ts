/**
 * `memory projects`: which projects the memories are filed under, and `projects merge OLD NEW`,
 * which files OLD's memories under NEW on every machine through an alias kept in the memory
 * repository (no memory is rewritten).
 */
import { UserError } from '../errors.js';
import { appendAlias } from '../project/aliases.js';
import { nameMatches } from '../project/label.js';
import { openCache } from '../store/cache.js';
import type { ProjectInfo, Store } from '../store/store.js';
import { captureLockFor } from './sync/locks.js';
import type { Runtime } from './runtime.js';
import { commitAndPush, type SyncReport } from './sync/sync-run.js';

/** NEW as the project it names (a project, a repository key or URL); undefined when there is none. */
function targetOf(store: Store, given: string, list: ProjectInfo[]): { name: string; repo?: string } | undefined {
  const name = store.projects.resolveProject(given);
  const known = list.some((p) => p.project === name);
  if (!known) return undefined;
  const repo = [...store.projects.repoNames()].find(([, n]) => n === name)?.[0];
  return { name, ...(repo ? { repo } : {}) };
}

export async function mergeProjects(rt: Runtime, from: string, to: string, push: boolean): Promise<{ from: string; to: string; moved: number; sync?: SyncReport }> {
  if (from.trim() === '' || to.trim() === '') throw new UserError('give two project names: memory projects merge OLD NEW');
  const { lock, repo } = await captureLockFor(rt);
  return lock(async () => {
    let { store } = openCache(rt.cacheOptions());
    let target: { name: string; repo?: string } | undefined;
    let before: number;
    try {
      const list = store.projects.projectList();
      // OLD as it is filed or captured, or as people read it (`日記` for `xn--wgvt91f`).
      const old = list.find((p) => [p.project, ...p.names].some((n) => nameMatches(from, n)));
      if (old) from = [old.project, ...old.names].find((n) => n === from) ?? [old.project, ...old.names].find((n) => nameMatches(from, n)) ?? from;
      if (!old) throw new UserError(`no memories under project "${from}"`, `see \`memory projects\` for the names in use${list.length > 0 ? ` (${list.slice(0, 8).map((p) => p.project).join(', ')}…)` : ''}`);
      target = targetOf(store, to, list);
      if (!target) throw new UserError(`no project "${to}" to merge into`, 'name a project `memory projects` lists (or its repository, e.g. github.com/acme/api)');
      if (target.name === from) throw new UserError(`"${from}" is already filed under "${target.name}"`);
      before = list.find((p) => p.project === target?.name)?.memories ?? 0;
    } finally {
      store.close();
    }
    appendAlias(rt.config.general.export_dir, { from, to: target.name, ...(target.repo ? { repo: target.repo } : {}), machine: rt.config.general.machine_name, at: rt.now().toISOString() });
    ({ store } = openCache(rt.cacheOptions()));
    let after: number;
    try {
      after = store.projects.projectList().find((p) => p.project === target?.name)?.memories ?? 0;
    } finally {
      store.close();
    }
    const sync = repo ? await commitAndPush(rt, repo, `memory: project ${from} merged into ${target.name} (${rt.config.general.machine_name})`, push) : undefined;
    return { from, to: target.name, moved: after - before, ...(sync ? { sync } : {}) };
  });
}
