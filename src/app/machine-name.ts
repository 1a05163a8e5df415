/**
 * The default machine name, fixed at first use. The bare hostname is not enough: two
 * laptops called MacBook-Pro, two containers, a re-cloned machine would all write the same
 * files. So a checkout with no machine_name gets the hostname plus a short random suffix,
 * written once to config.local.toml. A checkout that already committed memories under the
 * bare hostname (its own reflog says so) keeps it, so nothing of its history moves.
 */
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { parse as parseToml } from 'smol-toml';
import { localConfigPath, writeLocalKeys } from '../config/local.js';
import type { Config } from '../config/schema.js';
import { errorMessage } from '../errors.js';
import { acquireLock } from '../export/lock.js';
import { memoryRepository } from '../home/target.js';
import { machineName } from '../project/label.js';
import { reflogHasSubject } from '../sync/history.js';

function nameInLocalFile(baseDir: string): string | undefined {
  const file = localConfigPath(baseDir);
  if (!existsSync(file)) return undefined;
  try {
    const doc = parseToml(readFileSync(file, 'utf8')) as { general?: { machine_name?: unknown } };
    const v = doc.general?.machine_name;
    return typeof v === 'string' && v.length > 0 ? v : undefined;
  } catch {
    return undefined;
  }
}

export async function fixMachineName(config: Config, warn: (m: string) => void): Promise<string> {
  const host = config.general.machine_name; // the sanitized hostname load.ts put there
  let name: string | undefined;
  let release: (() => void) | undefined;
  try {
    release = acquireLock(`${localConfigPath(config.baseDir)}.lock`, { timeoutMs: 5000, purpose: 'config.local.toml' });
  } catch {
    /* another process is writing it: read what it wrote below, or fall back */
  }
  try {
    name = nameInLocalFile(config.baseDir);
    if (!name) {
      const repo = await memoryRepository(config, { make: false }).catch(() => undefined);
      const legacy = repo !== undefined && (await reflogHasSubject(repo, `memory: ${host} `));
      const fresh = legacy ? host : `${host.slice(0, 56)}-${randomBytes(2).toString('hex')}`;
      try {
        writeLocalKeys(config.baseDir, 'general', { machine_name: fresh });
        name = fresh;
      } catch (err) {
        // Cannot record it: a name that is stable for this checkout all the same.
        name = `${host.slice(0, 56)}-${createHash('sha1').update(config.baseDir).digest('hex').slice(0, 4)}`;
        warn(`cannot write machine_name to ${localConfigPath(config.baseDir)} (${errorMessage(err)}); using "${name}"`);
      }
    }
  } finally {
    release?.();
  }
  const fixed = machineName(name);
  (config.general as { machine_name: string }).machine_name = fixed;
  return fixed;
}
