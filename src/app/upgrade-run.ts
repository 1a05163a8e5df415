/**
 * `memory upgrade`: the move of the old layout's memories (upgrade.ts, which every writer
 * runs on its way into the repository) done now, then a sync to push it.
 */
import { pendingLegacy } from '../home/place.js';
import { readSyncState, type MoveNote } from '../sync/state.js';
import { foreignStateError, withMemoryRepo } from './locks.js';
import type { Runtime } from './runtime.js';
import { syncNow } from './sync-run.js';

/** `memory upgrade`: the move now (under the home's lock), then a sync to push it. */
export async function runUpgrade(rt: Runtime): Promise<MoveNote | undefined> {
  let moved: MoveNote | undefined;
  const pending = rt.config.legacy !== undefined && rt.config.home !== undefined && pendingLegacy(rt.config.legacy, rt.config.home);
  await withMemoryRepo(rt, { timeoutMs: 60_000 }, async (state) => {
    if (!state.repo) return;
    if (state.foreign) throw foreignStateError(state.foreign);
    // withMemoryRepo moved it on the way in; its report is the last one kept.
    if (pending) moved = (readSyncState(state.repo.gitDir).moved ?? []).filter((m) => m.from === rt.config.legacy).at(-1);
    await syncNow(rt, state.repo, { pushAttempts: 4, message: `memory: ${rt.config.general.machine_name} upgrade` });
  });
  return moved;
}
