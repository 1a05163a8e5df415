/**
 * The upgrade from the layout before the memory home (issue 25): memories committed in a
 * checkout of the tool, pushed to a `memory` remote that also holds the tool's history. On
 * first use of the home (automatically, by the first writer) or by `memory upgrade`, every
 * memory line of that checkout — its work tree, and its memory remote's branch as that
 * remote has it now — is united into the home, the home takes over the checkout's machine
 * name and memory remote (home/ and config/load.ts copy the settings), queued captures move
 * along, and the checkout is marked so that it is not read again. The checkout itself is not
 * changed: its branch still holds the memory commits it had, which the report says.
 *
 * The home pushes to branch `memories` of the same remote, beside the old branch: a machine
 * that upgrades days later unites its checkout the same way, so nothing is lost anywhere.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse as parseToml } from 'smol-toml';
import { writeLocalKeys } from '../../config/local.js';
import { ensurePrivateDir } from '../../config/paths.js';
import { errorMessage } from '../../errors.js';
import { memoryFilesAt, uniteInto, workTreeMemoryFiles } from '../../home/join.js';
import { legacyFileSizes, movedMarkerPath, pendingLegacy, type MovedMarker } from '../../home/place.js';
import { ourGit, runNetworkGit, type Repo } from '../../sync/process.js';
import { updateSyncState, type MoveNote } from '../../sync/state.js';
import { describeMove } from './moved.js';
import { queueDirFor } from '../capture/queue.js';
import type { Runtime } from '../runtime.js';
import { commitPending, exportRelOf, networkLimits } from '../sync/sync-run.js';

/**
 * Move a pending checkout's memories into the home. Callers hold the home's lock (this runs
 * inside withMemoryRepo). Returns undefined when there is nothing to move.
 */
export async function moveLegacyMemories(rt: Runtime, home: Repo, opts: { force?: boolean } = {}): Promise<MoveNote | undefined> {
  const checkout = rt.config.legacy;
  const to = rt.config.home;
  if (!checkout || !to || !(opts.force || pendingLegacy(checkout, to, rt.now().getTime()))) return undefined;
  const exportRel = exportRelOf(rt, home);
  // What the checkout holds as it is read now: the marker compares with it later (home/place.ts).
  const sizes = legacyFileSizes(checkout);
  const files = new Map<string, string>();
  // The checkout's work tree: everything it committed and what it appended since.
  for (const [path, text] of workTreeMemoryFiles(join(checkout, 'export'), '')) files.set(`${exportRel}/${path}`, text);
  const g = ourGit(checkout);
  const branch = (await g.raw(['symbolic-ref', '--quiet', '--short', 'HEAD']).catch(() => '')).trim() || undefined;
  const report: MoveNote = { from: checkout, to, files: 0, lines: 0, fromRemote: 0, queued: 0, checkoutCommits: 0, ...(branch ? { branch } : {}) };
  const legacyUrl = legacyRemoteUrl(checkout);
  // What its memory remote holds that it never pulled (another machine still on the old layout).
  const url = legacyUrl ?? rt.config.sync.remote_url;
  const remote = url && branch
    ? await legacyRemoteFiles(rt, checkout, url, branch, exportRel).catch((err: unknown) => {
        report.remoteDetail = errorMessage(err).split('\n')[0];
        return new Map<string, string>();
      })
    : new Map<string, string>();
  // The home named no remote of its own yet: it takes over the checkout's.
  if (!rt.config.sync.remote_url && legacyUrl) {
    writeLocalKeys(rt.config.baseDir, 'sync', { remote_url: legacyUrl });
    (rt.config.sync as { remote_url: string }).remote_url = legacyUrl;
  }
  const local = uniteInto(home.root, files);
  const fromRemote = uniteInto(home.root, remote);
  // What is in the home now, whoever moved it: a run killed half-way moved some of it already.
  report.files = local.presentFiles;
  report.lines = local.present;
  report.fromRemote = fromRemote.lines;
  report.queued = moveQueue(checkout, rt.config.baseDir);
  report.checkoutCommits = Number((await g.raw(['rev-list', '--count', '--grep=^Memory-Machine: ', 'HEAD']).catch(() => '0')).trim()) || 0;
  await commitPending(rt, home, `memory: ${rt.config.general.machine_name} moved its memories from ${checkout}`);
  // The old memory remote could not be read: what it holds (another old-layout machine's pushes)
  // is not here, so the checkout is not marked as done — the next run past the retry time tries again.
  const unread = report.remoteDetail ? { detail: report.remoteDetail, retry_after: new Date(rt.now().getTime() + 3600_000).toISOString() } : undefined;
  const marker: MovedMarker = { home: to, at: rt.now().toISOString(), memories: report.lines, files: report.files, sizes, ...(unread ? { remote_unread: unread } : {}) };
  ensurePrivateDir(join(checkout, '.cache'));
  writeFileSync(movedMarkerPath(checkout), `${JSON.stringify(marker)}\n`);
  updateSyncState(home.gitDir, (s) => (s.moved = [...(s.moved ?? []), report]));
  rt.log.info(describeMove(report));
  return report;
}

/**
 * The old memory remote's branch, fetched in the checkout (whose object store already holds
 * the tool's history, so the home never gets it), its memory files read from there.
 */
async function legacyRemoteFiles(rt: Runtime, checkout: string, url: string, branch: string, exportRel: string): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  const g = ourGit(checkout);
  const ref = 'refs/memory-engine/legacy-remote';
  await runNetworkGit(checkout, ['fetch', '--progress', '--no-tags', url, `+refs/heads/${branch}:${ref}`], networkLimits(rt, 60_000));
  for (const [path, text] of await memoryFilesAt(checkout, ref, 'export')) out.set(`${exportRel}/${path.replace(/^export\//, '')}`, text);
  await g.raw(['update-ref', '-d', ref]).catch(() => '');
  return out;
}

/** The memory remote the checkout named (its config.local.toml, else its `memory` git remote). */
function legacyRemoteUrl(checkout: string): string | undefined {
  try {
    const doc = parseToml(readFileSync(join(checkout, 'config.local.toml'), 'utf8')) as { sync?: { remote_url?: unknown } };
    if (typeof doc.sync?.remote_url === 'string' && doc.sync.remote_url) return doc.sync.remote_url;
  } catch {
    /* none, or unreadable: ask git */
  }
  try {
    return execFileSync('git', ['remote', 'get-url', 'memory'], { cwd: checkout, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim() || undefined;
  } catch {
    return undefined;
  }
}

/** Queue entries of the checkout (captures not yet written) into the home's queue. */
function moveQueue(checkout: string, homeBase: string): number {
  const from = queueDirFor(checkout);
  if (!existsSync(from)) return 0;
  const to = queueDirFor(homeBase);
  mkdirSync(to, { recursive: true, mode: 0o700 });
  let moved = 0;
  for (const name of readdirSync(from)) {
    try {
      renameSync(join(from, name), join(to, name));
      moved++;
    } catch {
      /* left for the checkout's own worker, which still runs an older version */
    }
  }
  return moved;
}
