/**
 * The floor under the light hooks, as a process of its own: what the design's own packages cost
 * before any code of ours runs — smol-toml parses the configuration, better-sqlite3 opens the
 * cache and answers one query of the file index (a file's newest memories), with the compile
 * cache on as the hooks have it. `npm run bench` times it beside the file-recall hook, both
 * against `node -e 0`: the hook cannot cost less than this.
 *
 *   node dist/bench/hook-floor.js <config.toml> <memory.db> <repository key> <path>
 */
import module from 'node:module';

module.enableCompileCache?.();
// Each through require, the cheapest way Node loads them (as the hooks' CommonJS bundles do): no
// ES facade for node:fs, smol-toml's CommonJS build, better-sqlite3 as it is.
const load = module.createRequire(import.meta.url);
const { readFileSync } = load('node:fs') as typeof import('node:fs');
const { parse } = load('smol-toml') as typeof import('smol-toml');
const Database = load('better-sqlite3') as typeof import('better-sqlite3');
const [config, db, repo, path] = process.argv.slice(2) as [string, string, string, string];
parse(readFileSync(config, 'utf8'));
const cache = new Database(db, { readonly: true });
cache.prepare('SELECT memory_rowid FROM memory_files WHERE repo = ? AND path = ? ORDER BY ts_ms DESC, memory_rowid DESC LIMIT 50').all(repo, path);
cache.close();
