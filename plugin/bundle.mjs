// The hooks that run on every prompt, every file the agent touches and every turn's end, each as
// one file (dist/src/cli/<hook>.bundle.cjs, beside the modules it is made of, so that paths taken
// from the module's own place still hold). Node resolves, reads and links each module of a graph
// on its own: the file-recall hook's ~75 modules cost about 25 ms of every run that one file does
// not. CommonJS, because Node gives `require('node:fs')` at once but builds an ES facade for
// `import … from 'node:fs'` that loads fs/promises and the streams, ~3 ms (bench/RESULTS.md).
// Made by `npm run build` and by the plugin's set-up; `memory` runs the modules themselves when a
// bundle is missing (esbuild, an optional dependency, not installed).
import { readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

/** The light hooks' entry modules, in dist/src/cli. */
export const HOOK_ENTRIES = ['file-recall-hook', 'recall-hook', 'stop-hook'];

/** Packages put into the bundles: plain ES modules, small. The others (native code, large) stay where npm put them. */
const INLINED = ['smol-toml', '@noble/hashes', 'shell-quote'];

/**
 * Bundle the light hooks of the package at `root` (dist/src built). Old bundles are removed first:
 * a bundle never outlives the modules it was made of.
 * @param {string} root
 * @returns {Promise<string | undefined>} why nothing was bundled, or undefined
 */
export async function bundleHooks(root) {
  const cli = join(root, 'dist', 'src', 'cli');
  for (const name of HOOK_ENTRIES) for (const ext of ['js', 'cjs']) rmSync(join(cli, `${name}.bundle.${ext}`), { force: true });
  /** @type {typeof import('esbuild')} */
  let esbuild;
  try {
    esbuild = createRequire(join(root, 'package.json'))('esbuild');
  } catch {
    return 'esbuild is not installed';
  }
  const pkg = /** @type {{ dependencies?: Record<string, string> }} */ (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')));
  await esbuild.build({
    entryPoints: HOOK_ENTRIES.map((name) => ({ in: join(cli, `${name}.js`), out: `${name}.bundle` })),
    outdir: cli,
    bundle: true,
    platform: 'node',
    format: 'cjs',
    outExtension: { '.js': '.cjs' },
    // The modules' own place, as their ES form had it (the analysis worker, `later`'s require).
    define: { 'import.meta.url': '__moduleUrl' },
    banner: { js: '"use strict";\nconst __moduleUrl = require("node:url").pathToFileURL(__filename).href;' },
    target: 'node22',
    external: Object.keys(pkg.dependencies ?? {}).filter((name) => !INLINED.includes(name)),
    logLevel: 'silent',
  });
  return undefined;
}

// `node plugin/bundle.mjs` (npm run build).
if (process.argv[1] && pathToFileURL(resolve(process.argv[1])).href === import.meta.url) {
  const why = await bundleHooks(join(import.meta.dirname, '..'));
  if (why) process.stderr.write(`memory-engine: the hooks are not bundled (${why}); they run as separate modules\n`);
}
