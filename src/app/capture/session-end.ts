/**
 * The Stop/SessionEnd hook's work, done in a detached worker under the repository lock:
 * capture the transcript, append, update the cache, commit, push.
 */
import { basename } from 'node:path';
import { addPrivacyStats, describeRedactions } from '../../privacy/stats.js';
import { lazyEmbedder, type Embedder } from '../../embed/embedder.js';
import { openCache } from '../../store/cache.js';
import { describeShapes, recordShapes } from '../../capture/shapes.js';
import { captureTranscripts, emptyOutcome, type CaptureOutcome, type TranscriptRef } from './capture.js';
import { noteDeferred, withMemoryRepo } from '../sync/locks.js';
import { enqueue, queueDirFor } from './queue.js';
import type { Runtime } from '../runtime.js';
import { commitAndPush, type SyncReport } from '../sync/sync-run.js';
import { resolveTranscript, type SessionEndRequest } from './stop.js';

export interface CaptureRun {
  capture: CaptureOutcome;
  sync?: SyncReport;
  /**
   * Why nothing was captured now: the person's own git work is in progress. The transcripts
   * were queued (outside the work tree); the next session start or `memory sync` takes them.
   */
  deferred?: string;
}

/** How a capture reports progress and which model it uses. */
export interface CaptureOptions {
  progress?: (done: number, total: number) => void;
  embedProgress?: (done: number, total: number) => void;
  /** A model kept loaded across runs (the worker); else loaded on first need. */
  loadEmbedder?: () => Promise<Embedder>;
}

/** Capture while the caller holds the repository lock. */
export async function captureLocked(rt: Runtime, refs: TranscriptRef[], opts: CaptureOptions): Promise<CaptureOutcome> {
  const { store } = openCache(rt.cacheOptions({ warn: (m) => rt.log.warn(m) }));
  let capture: CaptureOutcome;
  try {
    capture = await captureTranscripts(
      {
        config: rt.config, store, now: rt.now, loadEmbedder: opts.loadEmbedder ?? lazyEmbedder(rt.embedderConfig()), log: rt.log,
        onShapes: (path, shapes) => {
          try {
            recordShapes(rt.config.baseDir, path, shapes);
          } catch {
            /* a tally only */
          }
        },
        ...(opts.progress ? { progress: opts.progress } : {}),
        ...(opts.embedProgress ? { embedProgress: opts.embedProgress } : {}),
      },
      refs,
    );
  } finally {
    store.close();
  }
  for (const p of capture.problems) rt.log.warn(p);
  if (capture.unknownShapes.length > 0) rt.log.warn(`transcript shapes not recognised: ${describeShapes(capture.unknownShapes)} — nothing was lost; if memories seem to be missing, report these`);
  try {
    addPrivacyStats(rt.config.baseDir, rt.now(), { redactions: capture.redactionsByKind, excludedSessions: capture.excludedSessions });
  } catch {
    /* a tally only: never worth failing a capture */
  }
  if (capture.files.length > 0) openCache(rt.cacheOptions({ warn: (m) => rt.log.warn(m) })).store.close();
  return capture;
}

/** Capture transcripts and sync at once, under the repository lock. Used by session-end by hand and import. */
export async function captureAndSync(
  rt: Runtime,
  refs: TranscriptRef[],
  opts: {
    push: boolean;
    message: (c: CaptureOutcome) => string;
    progress?: (done: number, total: number) => void;
    embedProgress?: (done: number, total: number) => void;
  },
): Promise<CaptureRun> {
  return withMemoryRepo(rt, {}, async ({ repo, foreign }) => {
    if (repo && foreign) {
      const { why } = noteDeferred(rt, repo, foreign);
      for (const r of refs) {
        enqueue(queueDirFor(rt.config.baseDir), { transcript: r.path, ...(r.sessionId ? { session_id: r.sessionId } : {}), ...(r.cwd ? { cwd: r.cwd } : {}), push: opts.push, flush: true, at: rt.now().toISOString() });
      }
      rt.log.warn(`not captured now: ${why}. ${refs.length} transcript(s) queued; they are committed at the next session start or \`memory sync\` once the repository is back on a branch`);
      return { capture: emptyOutcome(), deferred: why };
    }
    const capture = await captureLocked(rt, refs, opts);
    const run: CaptureRun = { capture };
    if (repo) run.sync = await commitAndPush(rt, repo, opts.message(capture), opts.push);
    else rt.log.info('the export folder is not in a git repository: memories are kept on this machine only');
    return run;
  });
}

export async function runSessionEnd(rt: Runtime, req: SessionEndRequest): Promise<CaptureRun | undefined> {
  const t = await resolveTranscript(() => rt.config.general.claude_projects_dir, req);
  if (!t.path) {
    rt.log.warn(`session-end: ${t.problem ?? 'no transcript'}`);
    return undefined;
  }
  const path = t.path;
  const ref: TranscriptRef = { path, ...(req.sessionId ? { sessionId: req.sessionId } : {}), ...(req.cwd ? { cwd: req.cwd } : {}) };
  const run = await captureAndSync(rt, [ref], {
    push: req.push,
    // Transcripts are named after their session id.
    message: (c) => `memory: ${rt.config.general.machine_name} +${c.added} ~${c.updated} (session ${req.sessionId ?? basename(path, '.jsonl')})`,
  });
  if (run.deferred) return run;
  const c = run.capture;
  rt.log.info(`session-end ${path}: ${c.turns} turns, ${c.added} new, ${c.updated} updated, ${c.unchanged} unchanged${c.pending ? `, ${c.pending} pending embedding` : ''}${c.redactions ? `, redacted ${describeRedactions(c.redactionsByKind)}` : ''}${c.excludedSessions ? ', excluded by [privacy] exclude_projects' : ''}${run.sync?.committed ? `, committed ${run.sync.sha?.slice(0, 8) ?? ''}` : ''}`);
  return run;
}
