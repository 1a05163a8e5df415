/**
 * The keyword analysis of a full rebuild, in a worker thread (analyze-feed.ts): batches of
 * [question, answer] in, their analysis out on the port, in order; the shared counter is
 * bumped after each batch so the main thread can wait for it without an event loop.
 */
import { parentPort, workerData, type MessagePort } from 'node:worker_threads';
import { analyseMemory } from './analyze.js';

const { port, signal } = workerData as { port: MessagePort; signal: Int32Array };

parentPort?.on('message', (batch: Array<[string, string]>) => {
  port.postMessage(batch.map(([q, a]) => analyseMemory(q, a)));
  Atomics.add(signal, 0, 1);
  Atomics.notify(signal, 0);
});
