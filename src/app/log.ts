/** Hook diagnostics: one line each to stderr and to a log file beside the cache. */
import { appendFileSync, renameSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { ensureCacheDir, PRIVATE_FILE_MODE } from '../config/paths.js';

export interface Logger {
  readonly path: string;
  info(message: string): void;
  warn(message: string): void;
}

const MAX_LOG_BYTES = 1024 * 1024;

export function logPathFor(dbPath: string): string {
  return join(dirname(dbPath), 'memory.log');
}

export function fileLogger(path: string, opts: { stderr?: NodeJS.WritableStream; echoInfo?: boolean } = {}): Logger {
  const write = (level: string, message: string) => {
    try {
      ensureCacheDir(dirname(path));
      try {
        if (statSync(path).size > MAX_LOG_BYTES) renameSync(path, `${path}.1`);
      } catch {
        /* no log yet */
      }
      appendFileSync(path, `${new Date().toISOString()} [${process.pid}] ${level} ${message.replace(/\n/g, ' ⏎ ')}\n`, { mode: PRIVATE_FILE_MODE });
    } catch {
      /* logging must never break a hook */
    }
  };
  return {
    path,
    info(message) {
      write('info', message);
      if (opts.echoInfo) opts.stderr?.write(`memory: ${message}\n`);
    },
    warn(message) {
      write('warn', message);
      opts.stderr?.write(`memory: ${message}\n`);
    },
  };
}
