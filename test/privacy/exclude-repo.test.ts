/**
 * An excluded repository stays excluded whatever it is called: `[privacy] exclude_projects`
 * holds for the repository (its key and every name the registry may give it), not for the
 * spelling the person saw in `memory projects`. Real git checkouts, real CLI.
 */
import { git } from '../support/git-fixture.js';
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { hideExcluded, isExcludedPlace } from '../../src/project/exclude.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { CLI, makeWorld, rec, runCli, writeJsonl } from '../support/helpers.js';
import { assistant, text, transcript, user } from '../support/transcript-builder.js';

function checkout(dir: string, origin: string): string {
  mkdirSync(dir, { recursive: true });
  git(dir, 'init', '-q');
  git(dir, 'remote', 'add', 'origin', origin);
  return dir;
}

describe('an excluded repository, by any of its names', () => {
  it('a place or a stored memory of github.com/acme/api is excluded as "acme-api" while it is filed as "api", and as the key itself', () => {
    const place = { name: 'api', repo: { key: 'github.com/acme/api' } };
    assert.equal(isExcludedPlace(['acme-api'], place, '/home/u/api'), true);
    assert.equal(isExcludedPlace(['github.com/acme/*'], place, '/home/u/api'), true);
    assert.equal(isExcludedPlace(['other-api'], place, '/home/u/api'), false);
    const hide = hideExcluded(['acme-api']);
    assert.ok(hide);
    assert.equal(hide({ project: 'api', cwd: '/elsewhere', repo: 'github.com/acme/api', project_raw: 'api' }), true);
    assert.equal(hide({ project: 'api', cwd: '/elsewhere', repo: 'github.com/other/api', project_raw: 'api' }), false);
  });

  it('through the CLI and the MCP server: nothing captured or remembered in its checkout, nothing of it found by search', async () => {
    const w = makeWorld({ extra: '[privacy]\nexclude_projects = ["acme-api"]' });
    try {
      const acme = checkout(join(w.dir, 'code', 'api'), 'git@github.com:acme/api.git');
      // Memories of it from before the exclusion, filed under its short name "api".
      writeJsonl(join(w.exportDir, '2026-11_laptop.jsonl'), [
        rec({ id: 'acme-1', project: 'api', question: 'the zebra deploy key rotation for acme', answer: 'rotate-zebra', extra: { repo: 'github.com/acme/api' } }),
        rec({ id: 'web-1', project: 'web', question: 'the zebra deploy of the web site', answer: 'npm run ship' }),
      ]);
      const found = JSON.parse(runCli(['-c', w.config, 'search', '--mode', 'keyword', '--json', 'zebra deploy']).stdout) as { hits: Array<{ id: string }> };
      assert.deepEqual(found.hits.map((h) => h.id), ['web-1'], 'the visible memory is found, the excluded one is not');

      const t = transcript('s-acme', acme);
      user(t, 'How do we rotate the osprey signing key?');
      assistant(t, [{ text: 'Run rotate-osprey.' }]);
      const path = join(w.dir, 's-acme.jsonl');
      writeFileSync(path, text(t));
      const end = runCli(['-c', w.config, 'session-end', '--foreground', '--json', '--transcript', path, '--cwd', acme]);
      assert.equal(end.code, 0, end.stderr);
      const out = JSON.parse(end.stdout) as { added: number; excluded?: number };
      assert.equal(out.added, 0, 'nothing captured in the excluded checkout');

      // An MCP server started in the checkout: memory is off there, memory_remember too.
      const transport = new StdioClientTransport({ command: process.execPath, args: [CLI, '--config', w.config, 'mcp'], cwd: acme, env: { ...process.env, MEMORY_CONFIG: '' } as Record<string, string>, stderr: 'pipe' });
      const client = new Client({ name: 'test', version: '1.0.0' });
      await client.connect(transport);
      try {
        const r = (await client.callTool({ name: 'memory_remember', arguments: { text: 'Remember: the osprey key lives in the vault' } })) as { isError?: boolean; content: Array<{ text: string }> };
        assert.equal(r.isError, true);
        assert.match(r.content[0]?.text ?? '', /excluded/);
      } finally {
        await client.close();
      }
      const all = JSON.parse(runCli(['-c', w.config, 'search', '--mode', 'keyword', '--json', 'osprey']).stdout) as { hits: unknown[] };
      assert.equal(all.hits.length, 0);
    } finally {
      w.cleanup();
    }
  });

  it('the MCP server never returns an excluded project\'s memories, whatever the agent asks: named by project, by its key, by id (the person\'s CLI still may)', async () => {
    const w = makeWorld({ extra: '[privacy]\nexclude_projects = ["acme-api"]' });
    try {
      writeJsonl(join(w.exportDir, '2026-11_laptop.jsonl'), [
        rec({ id: 'acme-secret-1', project: 'api', question: 'the heron payroll export for acme', answer: 'heron-payroll', extra: { repo: 'github.com/acme/api' } }),
        rec({ id: 'web-heron-1', project: 'web', question: 'the heron banner of the web site', answer: 'banner.png' }),
      ]);
      const elsewhere = join(w.dir, 'elsewhere');
      mkdirSync(elsewhere, { recursive: true });
      const transport = new StdioClientTransport({ command: process.execPath, args: [CLI, '--config', w.config, 'mcp'], cwd: elsewhere, env: { ...process.env, MEMORY_CONFIG: '' } as Record<string, string>, stderr: 'pipe' });
      const client = new Client({ name: 'test', version: '1.0.0' });
      await client.connect(transport);
      try {
        const ask = async (args: Record<string, unknown>) => JSON.parse(((await client.callTool({ name: 'memory_search', arguments: { query: 'heron', mode: 'keyword', ...args } })) as { content: Array<{ text: string }> }).content[0]?.text ?? '{}') as { hits: Array<{ id: string }> };
        assert.deepEqual((await ask({})).hits.map((h) => h.id), ['web-heron-1'], 'a plain search: the visible one');
        for (const project of ['api', 'acme-api', 'github.com/acme/api', 'https://github.com/acme/api']) {
          assert.deepEqual((await ask({ project })).hits.map((h) => h.id), [], `named as ${project}`);
        }
        const shown = (await client.callTool({ name: 'memory_show', arguments: { id: 'acme-secret-1' } })) as { isError?: boolean; content: Array<{ text: string }> };
        assert.equal(shown.isError, true);
        assert.doesNotMatch(shown.content[0]?.text ?? '', /heron-payroll/);
      } finally {
        await client.close();
      }
      // The person may look: the CLI with --project names it.
      const mine = JSON.parse(runCli(['-c', w.config, 'search', '--mode', 'keyword', '--json', '--project', 'api', 'heron']).stdout) as { hits: Array<{ id: string }> };
      assert.deepEqual(mine.hits.map((h) => h.id), ['acme-secret-1']);
    } finally {
      w.cleanup();
    }
  });
});
