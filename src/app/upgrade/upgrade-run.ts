/**
 * `memory upgrade`: the move of the old layout's memories (upgrade.ts, which every writer
 * runs on its way into the repository) done now, then a sync to push it.
 */
import { pendingLegacy, readMovedMarker } from '../../home/place.js';
import { moveLegacyMemories } from './upgrade.js';
import { readSyncState, type MoveNote } from '../../sync/state.js';
import { foreignStateError, withMemoryRepo } from '../sync/locks.js';
import type { Runtime } from '../runtime.js';
import { syncNow } from '../sync/sync-run.js';

/**
 * `memory upgrade`: the move now (under the home's lock), then a sync to push it. A move whose
 * old memory remote could not be read is tried again now, whatever its retry time: the person asked.
 */
export async function runUpgrade(rt: Runtime): Promise<MoveNote | undefined> {
  let moved: MoveNote | undefined;
  const legacy = rt.config.legacy;
  const pending = legacy !== undefined && rt.config.home !== undefined && pendingLegacy(legacy, rt.config.home, rt.now().getTime());
  const retry = legacy !== undefined && readMovedMarker(legacy)?.remote_unread !== undefined;
  await withMemoryRepo(rt, { timeoutMs: 60_000 }, async (state) => {
    if (!state.repo) return;
    if (state.foreign) throw foreignStateError(state.foreign);
    // withMemoryRepo moved it on the way in; its report is the last one kept.
    if (pending) moved = (readSyncState(state.repo.gitDir).moved ?? []).filter((m) => m.from === legacy).at(-1);
    else if (retry) moved = await moveLegacyMemories(rt, state.repo, { force: true });
    await syncNow(rt, state.repo, { pushAttempts: 4, message: `memory: ${rt.config.general.machine_name} upgrade` });
  });
  return moved;
}
