/**
 * `npm run clients:install`: the real Claude Code and Codex clients for the real-client tests,
 * from the npm registry into the cache folder (test/clients/clients.ts), each at the version the
 * tests were written against. Idempotent: an installed client is left as it is.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { CLIENTS, clientBin, clientsRoot, type ClientName } from '../clients/clients.js';

let failed = false;
for (const name of Object.keys(CLIENTS) as ClientName[]) {
  const c = CLIENTS[name];
  if (existsSync(clientBin(name))) {
    process.stdout.write(`${c.pkg}@${c.version}: installed (${clientBin(name)})\n`);
    continue;
  }
  const prefix = join(clientsRoot(), `${name}-${c.version}`);
  mkdirSync(prefix, { recursive: true });
  const t = Date.now();
  const r = spawnSync('npm', ['install', '--prefix', prefix, '--no-audit', '--no-fund', '--loglevel=error', `${c.pkg}@${c.version}`], { stdio: 'inherit', timeout: 15 * 60_000 });
  if (r.status !== 0 || !existsSync(clientBin(name))) {
    process.stderr.write(`${c.pkg}@${c.version}: install failed (npm exit ${r.status ?? r.signal}); the real-client tests will skip\n`);
    failed = true;
  } else {
    process.stdout.write(`${c.pkg}@${c.version}: installed in ${Math.round((Date.now() - t) / 1000)} s (${clientBin(name)})\n`);
  }
}
process.exitCode = failed ? 1 : 0;
