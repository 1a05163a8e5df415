// `npm install` in a clone (package.json "prepare"): dist/ built with the project's tsc when the
// development dependencies are here (`npm install --include=dev`); without them — the .npmrc
// says omit=dev, so that the plugins' installs carry production dependencies only — dist/src is
// built by Node's type stripping, as the plugins build themselves (launcher.mjs), and a clone
// kept up to date with a plain `npm install` still runs.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildDist } from './launcher.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
if (existsSync(join(root, 'node_modules', 'typescript', 'bin', 'tsc'))) {
  const npm = join(dirname(process.execPath), process.platform === 'win32' ? 'npm.cmd' : 'npm');
  const r = spawnSync(existsSync(npm) ? npm : 'npm', ['run', 'build'], { cwd: root, stdio: 'inherit' });
  process.exit(r.status ?? 1);
}
const n = await buildDist(root);
process.stderr.write(`memory-engine: built dist/src from ${n} sources by type stripping (no TypeScript here: \`npm install --include=dev\` brings it, with the tests)\n`);
