/**
 * The one context of the application layer: the loaded config, the clock, the log, the
 * cache and model settings, and how to start the capture worker — with the process's IO for
 * the front ends that have one. The CLI, the viewer and the MCP server each build one with
 * makeContext and hand it (or a copy with another log, runtimeOf) to the use cases, which
 * need only its Runtime part.
 */
import { folderRepositoryKey } from '../project/repository.js';
import { configArgOf, loadConfig } from '../config/load.js';
import { useMyGitSettings } from '../sync/process.js';
import { modelIdOf, modelIsCached, type EmbedderConfig } from '../embed/embedder.js';
import { fileLogger, logPathFor, type Logger } from './log.js';
import type { Runtime } from './runtime.js';
import { spawnWorker, startWorkerOnce } from './capture/stop.js';
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
  /** Set when stdout is this process's own (fd 1): a light hook writes its one line to it without a stream. */
  stdoutFd?: number;
  env: NodeJS.ProcessEnv;
  cwd: string;
  now: () => Date;
}

export interface Context extends Runtime {
  io: IO;
  warn: (message: string) => void;
}

export async function makeContext(globals: GlobalOptions, io: IO): Promise<Context> {
  const { config, warnings, machineNameDefaulted } = loadConfig({ ...(globals.config ? { configPath: globals.config } : {}), env: io.env, cwd: io.cwd });
  useMyGitSettings(config.sync.my_git_settings);
  const warn = (message: string) => io.stderr.write(`memory: ${message}\n`);
  for (const w of warnings) warn(`${w.file}: ${w.key}: ${w.message}`);
  if (machineNameDefaulted) await fixMachineName(config, warn);
  const configFile = configArgOf(config);
  const log = fileLogger(logPathFor(config.general.db_path), { stderr: io.stderr });
  return {
    config,
    io,
    warn,
    now: io.now,
    log,
    startWorker: async () => {
      await startWorkerOnce(config.baseDir, () => spawnWorker(configFile, io.env, (m) => log.warn(m)));
    },
    cacheOptions: (extra = {}) => ({
      dbPath: config.general.db_path,
      exportDir: config.general.export_dir,
      model: modelIdOf(config.embedding.model),
      dim: config.embedding.dim,
      repoOfFolder: folderRepositoryKey,
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

/**
 * The same context with the log a use case should write to: a hook's log goes to the file
 * (and to stderr unless `quiet`); `echoInfo` also shows info lines (a command run by hand).
 */
export function runtimeOf(ctx: Context, opts: { echoInfo?: boolean; quiet?: boolean } = {}): Context {
  const log: Logger = fileLogger(logPathFor(ctx.config.general.db_path), {
    ...(opts.quiet ? {} : { stderr: ctx.io.stderr }),
    ...(opts.echoInfo ? { echoInfo: true } : {}),
  });
  return { ...ctx, log };
}
