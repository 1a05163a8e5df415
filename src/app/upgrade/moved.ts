/** How a move of the old layout's memories into the home is told (app/upgrade/upgrade.ts does it). */
import type { MoveNote } from '../../sync/state.js';

/** The sentence told once, at session start and by `memory upgrade`. */
export function describeMove(m: MoveNote): string {
  const parts = [`memory: memories moved from ${m.from}/export into the memory home ${m.to} (${m.lines} line(s) in ${m.files} file(s)${m.fromRemote ? `, ${m.fromRemote} from the old memory remote` : ''}${m.queued ? `, ${m.queued} queued capture(s)` : ''}); nothing was deleted.`];
  if (m.checkoutCommits > 0) {
    parts.push(`The checkout's branch ${m.branch ?? ''} still holds ${m.checkoutCommits} memory commit(s) in its history: do not push it anywhere public (or re-clone the tool, or install the package: npm install -g memory-engine).`);
  }
  if (m.remoteDetail) {
    // Never advise deleting what could not be read.
    parts.push(`The old memory remote could not be read (${m.remoteDetail}): what other machines pushed there was not moved yet; it is tried again within the hour (or run \`memory upgrade\`). Keep the old branch there until that works.`);
  } else {
    parts.push('Memories now sync on branch "memories" of the same memory remote; once every machine has upgraded, the old branch there can be deleted.');
  }
  return parts.join(' ');
}

