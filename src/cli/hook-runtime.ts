/** Build the hooks' Runtime from the CLI context; hooks log to stderr and to .cache/memory.log. */
import { fileLogger, logPathFor, type Logger } from '../hooks/log.js';
import type { Runtime } from '../hooks/runtime.js';
import type { Context } from './context.js';
import { startWorkerOnce } from '../hooks/stop.js';
import { spawnWorker } from './stop-hook.js';

export function runtimeOf(ctx: Context, opts: { echoInfo?: boolean; quiet?: boolean } = {}): Runtime {
  const log: Logger = fileLogger(logPathFor(ctx.config.general.db_path), {
    ...(opts.quiet ? {} : { stderr: ctx.io.stderr }),
    ...(opts.echoInfo ? { echoInfo: true } : {}),
  });
  const source = ctx.config.sources[0];
  const configFile = source && !source.startsWith('env:') ? source : undefined;
  return {
    config: ctx.config, now: ctx.io.now, log, cacheOptions: ctx.cacheOptions, embedderConfig: ctx.embedderConfig,
    startWorker: async () => {
      await startWorkerOnce(ctx.config.baseDir, () => spawnWorker(configFile, ctx.io.env, (m) => log.warn(m)));
    },
  };
}
