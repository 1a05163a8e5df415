/**
 * The analysis of every memory of a full rebuild, computed ahead of the inserts in a worker
 * thread: the JavaScript analysis (NFKC, CJK bigrams, identifier parts; about as long as the
 * FTS5 inserts themselves) then runs on the second core while this thread writes the
 * memories table and the vectors. The feed is read in order, synchronously (the rebuild is
 * one transaction, and openCache is synchronous): the main thread waits on a shared counter
 * and takes each batch with receiveMessageOnPort. Small rebuilds, or a worker that cannot
 * start or stops answering, are analysed here instead: same function, same result.
 */
import type { MessagePort, Worker } from 'node:worker_threads';
import { later } from '../later.js';
import { analyseMemory, type Analysed } from './analyze.js';

const threads = later<typeof import('node:worker_threads')>('node:worker_threads');

/** Below this many memories a worker's start-up (~40 ms) is not worth it. */
export const WORKER_MIN = 4000;
const BATCH = 1000;
/** A worker that gives nothing for this long is given up on (the rest is analysed here). */
const STALL_MS = 30_000;

export interface AnalysisFeed {
  /** The analysis of texts[i]; i never more than one past the highest asked so far, never two below it. */
  get(i: number): Analysed;
  close(): void;
  /** Whether a worker thread did the work (for tests and the bench). */
  readonly threaded: boolean;
}

export function analysisFeed(texts: Array<[string, string]>, opts: { worker?: boolean } = {}): AnalysisFeed {
  const results: Array<Analysed | undefined> = [];
  let received = 0;
  let worker: Worker | undefined;
  let port: MessagePort | undefined;
  let signal: Int32Array | undefined;
  if ((opts.worker ?? texts.length >= WORKER_MIN) && texts.length > 0) {
    try {
      signal = new Int32Array(new SharedArrayBuffer(4));
      const { MessageChannel, Worker } = threads();
      const channel = new MessageChannel();
      port = channel.port1;
      // Through the store folder's name, so that it holds from a hook's bundle too (dist/src/cli, plugin/bundle.mjs).
      worker = new Worker(new URL('../store/analyze-worker.js', import.meta.url), { workerData: { port: channel.port2, signal }, transferList: [channel.port2] });
      worker.unref();
      for (let i = 0; i < texts.length; i += BATCH) worker.postMessage(texts.slice(i, i + BATCH));
    } catch {
      worker = undefined;
    }
  }
  const giveUp = () => {
    void worker?.terminate();
    worker = undefined;
  };
  const take = (): boolean => {
    if (!worker || !port || !signal) return false;
    const deadline = Date.now() + STALL_MS;
    for (;;) {
      const seen = Atomics.load(signal, 0);
      const m = threads().receiveMessageOnPort(port);
      if (m) {
        for (const r of m.message as Analysed[]) results[received++] = r;
        return true;
      }
      const left = deadline - Date.now();
      if (left <= 0) {
        giveUp();
        return false;
      }
      Atomics.wait(signal, 0, seen, Math.min(left, 1000));
    }
  };
  const threaded = worker !== undefined;
  return {
    threaded,
    get(i: number): Analysed {
      const have = results[i];
      if (have) return have;
      while (received <= i && take()) {
        /* batches arrive in order */
      }
      let r = results[i];
      if (!r) {
        const [q, a] = texts[i] as [string, string];
        r = analyseMemory(q, a);
        results[i] = r;
        if (i >= received) received = i + 1;
      }
      // Only the row before and the one after are asked for again: let the rest go.
      if (i >= 2) results[i - 2] = undefined;
      return r;
    },
    close(): void {
      giveUp();
      port?.close();
    },
  };
}
