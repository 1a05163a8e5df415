/**
 * Sentence embeddings with @huggingface/transformers (ONNX, local, offline once cached).
 *
 * The library takes ~0.4 s just to import, so it is imported lazily, only by commands that
 * embed; session-start, rebuild and keyword search never touch it.
 */
import { existsSync } from 'node:fs';
import { basename, isAbsolute, join } from 'node:path';
import { errorMessage } from '../errors.js';

export interface EmbedderConfig {
  /** Hub id ("Xenova/multilingual-e5-small") or an absolute local folder. */
  model: string;
  dtype: string;
  queryPrefix: string;
  documentPrefix: string;
  /** Where downloaded models are cached (a user-level folder, not node_modules). */
  cacheDir: string;
  allowRemote: boolean;
  batchSize: number;
  /** A hub mirror to download from (`https://host/`); undefined = the library's default hub. */
  remoteHost?: string;
  /** Told as each model file loads; only downloads are worth showing (see `modelIsCached`). */
  onLoad?: (e: ModelLoadEvent) => void;
}

/** One model file's load: bytes so far of `total` (0 while unknown); `done` once it is in. */
export interface ModelLoadEvent {
  file: string;
  loaded: number;
  total: number;
  done: boolean;
}

/**
 * Whether loading needs no download: a local folder, or a hub model already in the cache
 * folder (transformers.js keeps `<cacheDir>/<model id>/…`). The library reports progress for
 * cached reads too, so this decides whether a download is announced at all.
 */
export function modelIsCached(cfg: Pick<EmbedderConfig, 'model' | 'cacheDir'>): boolean {
  if (isAbsolute(cfg.model)) return true;
  return existsSync(join(cfg.cacheDir, cfg.model, 'config.json')) && existsSync(join(cfg.cacheDir, cfg.model, 'onnx'));
}

/** The ONNX file transformers.js loads for a dtype (`onnx/model.onnx` for fp32, `onnx/model_quantized.onnx` for q8 …). */
export function onnxFileFor(dtype: string): string {
  if (dtype === 'fp32') return 'model.onnx';
  if (dtype === 'q8') return 'model_quantized.onnx';
  return `model_${dtype}.onnx`;
}

/**
 * What keeps a model given as a local folder from loading, in words, or undefined: the folder
 * is missing, or lacks a file the pipeline reads. (A hub model that is not here yet is no
 * problem: it is downloaded on first use.)
 */
export function localModelProblem(cfg: Pick<EmbedderConfig, 'model' | 'dtype'>): string | undefined {
  if (!isAbsolute(cfg.model)) return undefined;
  if (!existsSync(cfg.model)) return `the embedding model folder ${cfg.model} does not exist`;
  const missing = ['config.json', 'tokenizer.json', join('onnx', onnxFileFor(cfg.dtype))].filter((f) => !existsSync(join(cfg.model, f)));
  return missing.length > 0 ? `the embedding model folder ${cfg.model} cannot be loaded: it has no ${missing.join(', ')} (dtype ${cfg.dtype})` : undefined;
}

/** Where a hub model is downloaded from: `[embedding] remote_host`, else the Hugging Face hub. */
export function modelHost(cfg: Pick<EmbedderConfig, 'remoteHost'>): string {
  return cfg.remoteHost ? (cfg.remoteHost.endsWith('/') ? cfg.remoteHost : `${cfg.remoteHost}/`) : 'https://huggingface.co/';
}

/**
 * What else works when a hub model cannot be fetched — named, never the command that just
 * failed: the host it tried, a mirror, a folder that already holds the model.
 */
export function modelAlternatives(cfg: Pick<EmbedderConfig, 'remoteHost' | 'allowRemote' | 'cacheDir' | 'model'>): string {
  const tried = cfg.allowRemote ? `tried ${modelHost(cfg)}` : 'downloads are off ([embedding] allow_remote = false)';
  return ` (${tried}; a mirror of the hub: [embedding] remote_host = "https://<mirror>/"; a folder that holds the model (config.json, tokenizer.json, onnx/): [embedding] model = "/path/to/${modelIdOf(cfg.model)}", or copy it into ${join(cfg.cacheDir, cfg.model)})`;
}

export interface Embedder {
  /** Model id recorded in JSONL (`model` field). */
  readonly model: string;
  readonly dim: number;
  embedDocuments(texts: string[], onProgress?: (done: number, total: number) => void): Promise<Float32Array[]>;
  embedQuery(text: string): Promise<Float32Array>;
}

/** The model's name in records: a hub id as is, a local folder by its folder name. */
export function modelIdOf(model: string): string {
  return isAbsolute(model) ? basename(model.replace(/[\\/]+$/, '')) : model;
}

/** The model could not be loaded; the message is one line a user can act on. */
export class ModelUnavailable extends Error {
  override readonly name = 'ModelUnavailable';
}

export function documentText(question: string, answer: string): string {
  return `${question}\n\n${answer}`;
}

type Extractor = (texts: string[], opts: { pooling: 'mean'; normalize: boolean }) => Promise<{ data: Float32Array; dims: number[] }>;

export async function loadEmbedder(cfg: EmbedderConfig): Promise<Embedder> {
  const local = isAbsolute(cfg.model);
  if (local && !existsSync(cfg.model)) {
    throw new ModelUnavailable(`model folder ${cfg.model} does not exist (set [embedding] model to a hub id or an existing folder)`);
  }
  let extractor: Extractor;
  try {
    const tf = await import('@huggingface/transformers');
    tf.env.cacheDir = cfg.cacheDir;
    tf.env.allowLocalModels = true;
    tf.env.allowRemoteModels = local ? false : cfg.allowRemote;
    if (cfg.remoteHost) tf.env.remoteHost = cfg.remoteHost.endsWith('/') ? cfg.remoteHost : `${cfg.remoteHost}/`;
    const onLoad = cfg.onLoad;
    const progress_callback = onLoad
      ? (p: { status: string; file?: string; loaded?: number; total?: number }) => {
          if (!p.file) return;
          if (p.status === 'progress') onLoad({ file: p.file, loaded: p.loaded ?? 0, total: p.total ?? 0, done: false });
          else if (p.status === 'done') onLoad({ file: p.file, loaded: p.loaded ?? 0, total: p.total ?? 0, done: true });
        }
      : undefined;
    const pipe = await tf.pipeline('feature-extraction', cfg.model, { dtype: cfg.dtype as 'fp32', ...(progress_callback ? { progress_callback } : {}) });
    extractor = pipe as unknown as Extractor;
  } catch (err) {
    const why = errorMessage(err).split('\n')[0] ?? 'unknown error';
    throw new ModelUnavailable(`cannot load embedding model ${cfg.model}: ${why}${local ? '' : modelAlternatives(cfg)}`);
  }
  const run = async (texts: string[]): Promise<Float32Array[]> => {
    const out = await extractor(texts, { pooling: 'mean', normalize: true });
    const dim = out.dims[out.dims.length - 1] ?? 0;
    const vectors: Float32Array[] = [];
    for (let i = 0; i < texts.length; i++) vectors.push(Float32Array.from(out.data.subarray(i * dim, (i + 1) * dim)));
    return vectors;
  };
  const probe = await run(['dimension probe']);
  const dim = probe[0]?.length ?? 0;
  return {
    model: modelIdOf(cfg.model),
    dim,
    async embedDocuments(texts, onProgress) {
      const out: Float32Array[] = [];
      for (let i = 0; i < texts.length; i += cfg.batchSize) {
        const batch = texts.slice(i, i + cfg.batchSize).map((t) => cfg.documentPrefix + t);
        out.push(...(await run(batch)));
        onProgress?.(Math.min(i + cfg.batchSize, texts.length), texts.length);
      }
      return out;
    },
    async embedQuery(text) {
      const [v] = await run([cfg.queryPrefix + text]);
      if (!v) throw new ModelUnavailable('the model returned no vector');
      return v;
    },
  };
}

/** Load the model on first call only, and share that one load (and its failure) afterwards. */
export function lazyEmbedder(cfg: EmbedderConfig): () => Promise<Embedder> {
  let p: Promise<Embedder> | undefined;
  return () => (p ??= loadEmbedder(cfg));
}
