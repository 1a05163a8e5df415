/**
 * What every command needs: the loaded config and the identity of the cache. Commands
 * receive a Context instead of reading process state themselves.
 */
import { loadConfig } from '../config/load.js';
import type { Config } from '../config/schema.js';
import { modelIdOf, modelIsCached, type EmbedderConfig } from '../embed/embedder.js';
import type { CacheOptions } from '../store/cache.js';
import { fixMachineName } from './machine-name.js';
import { modelDownloadReporter, progressBar } from './progress.js';

export interface GlobalOptions {
  config?: string;
}

export interface IO {
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WriteStream;
  stdin: NodeJS.ReadableStream;
  /** Set when stdin is this process's own (fd 0): hooks may read it without a stream. */
  stdinFd?: number;
  env: NodeJS.ProcessEnv;
  cwd: string;
  now: () => Date;
}

export interface Context {
  config: Config;
  io: IO;
  warn: (message: string) => void;
  cacheOptions: (extra?: Partial<CacheOptions>) => CacheOptions;
  embedderConfig: () => EmbedderConfig;
}

export async function makeContext(globals: GlobalOptions, io: IO): Promise<Context> {
  const { config, warnings, machineNameDefaulted } = loadConfig({ ...(globals.config ? { configPath: globals.config } : {}), env: io.env, cwd: io.cwd });
  const warn = (message: string) => io.stderr.write(`memory: ${message}\n`);
  for (const w of warnings) warn(`${w.file}: ${w.key}: ${w.message}`);
  if (machineNameDefaulted) await fixMachineName(config, warn);
  return {
    config,
    io,
    warn,
    cacheOptions: (extra = {}) => ({
      dbPath: config.general.db_path,
      exportDir: config.general.export_dir,
      model: modelIdOf(config.embedding.model),
      dim: config.embedding.dim,
      warn,
      // A first build on a new machine reads everything: show it on a terminal.
      progress: progressBar('reading memories into the cache', io.stderr, 8 * 1024 * 1024).update,
      ...extra,
    }),
    embedderConfig: () => {
      const cfg: EmbedderConfig = {
        model: config.embedding.model,
        dtype: config.embedding.dtype,
        queryPrefix: config.embedding.query_prefix,
        documentPrefix: config.embedding.document_prefix,
        cacheDir: config.embedding.local_model_path,
        allowRemote: config.embedding.allow_remote,
        batchSize: config.embedding.batch_size,
        ...(config.embedding.remote_host ? { remoteHost: config.embedding.remote_host } : {}),
      };
      // A first hybrid search or `model pull` downloads ~120 MB: say so, and how far it is.
      if (!modelIsCached(cfg)) cfg.onLoad = modelDownloadReporter(io.stderr, cfg.model, cfg.cacheDir);
      return cfg;
    },
  };
}

export function printJson(io: IO, value: unknown): void {
  io.stdout.write(`${JSON.stringify(value)}\n`);
}
