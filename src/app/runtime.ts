/** What hook orchestration needs from its caller (the CLI builds it from the config). */
import type { Config } from '../config/schema.js';
import type { EmbedderConfig } from '../embed/embedder.js';
import type { CacheOptions } from '../store/cache.js';
import type { Logger } from './log.js';

export interface Runtime {
  config: Config;
  now: () => Date;
  log: Logger;
  cacheOptions: (extra?: Partial<CacheOptions>) => CacheOptions;
  embedderConfig: () => EmbedderConfig;
  /** Start the background capture worker (detached); absent where nothing may be spawned. */
  startWorker?: () => Promise<void>;
}
