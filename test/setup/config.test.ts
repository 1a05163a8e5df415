import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { loadConfig } from '../../src/config/load.js';
import { sanitizeName } from '../../src/config/validate.js';
import { machineLabel } from '../../src/project/label.js';
import { keyAtLine } from '../../src/config/shared.js';
import { UserError } from '../../src/errors.js';
import { tempDir } from '../support/helpers.js';

let dir: string;
let cleanup: () => void;
beforeEach(() => ({ dir, cleanup } = tempDir()));
afterEach(() => cleanup());

const load = (files: Record<string, string>, env: NodeJS.ProcessEnv = {}, cwd?: string) => {
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  return loadConfig({ configPath: join(dir, 'config.toml'), env, cwd: cwd ?? dir, home: '/home/u', host: 'My Laptop.local' });
};

function rejects(fn: () => unknown, ...parts: string[]): void {
  assert.throws(fn, (err: unknown) => {
    assert.ok(err instanceof UserError);
    for (const p of parts) assert.ok(err.message.includes(p), `"${err.message}" mentions ${p}`);
    return true;
  });
}

describe('config', () => {
  it('has working defaults; relative paths resolve against the config folder', () => {
    const { config } = load({ 'config.toml': '' });
    assert.equal(config.general.export_dir, join(dir, 'export'));
    assert.equal(config.general.db_path, join(dir, '.cache', 'memory.db'));
    assert.equal(config.general.claude_projects_dir, '/home/u/.claude/projects');
    assert.equal(config.general.machine_name, 'My-Laptop.local');
    assert.equal(config.search.top_k, 5);
    assert.equal(config.search.half_life_days, 30);
    assert.equal(config.search.rrf_k, 60);
    assert.equal(config.embedding.model, 'Xenova/multilingual-e5-small');
    assert.equal(config.embedding.query_prefix, 'query: ');
  });

  it('layers config.toml ← config.local.toml ← environment', () => {
    const { config } = load(
      {
        'config.toml': '[general]\nmachine_name = "shared"\nexport_dir = "mem"\n[search]\ntop_k = 7\nhalf_life_days = 10\n',
        'config.local.toml': '[general]\nmachine_name = "desk"\n[search]\ntop_k = 9\n',
      },
      { MEMORY_SEARCH_TOP_K: '11', MEMORY_PRIVACY_EXCLUDE_PROJECTS: 'secret-*, client-x' },
    );
    assert.equal(config.general.machine_name, 'desk');
    assert.equal(config.general.export_dir, join(dir, 'mem'));
    assert.equal(config.search.top_k, 11);
    assert.equal(config.search.half_life_days, 10);
    assert.deepEqual(config.privacy.exclude_projects, ['secret-*', 'client-x']);
  });

  it('short MEMORY_<KEY> names work for [general]; env paths resolve against the cwd', () => {
    const cwd = join(dir, 'elsewhere');
    mkdirSync(cwd);
    const { config } = load({ 'config.toml': '' }, { MEMORY_MACHINE_NAME: 'srv', MEMORY_EXPORT_DIR: 'x' }, cwd);
    assert.equal(config.general.machine_name, 'srv');
    assert.equal(config.general.export_dir, join(cwd, 'x'));
  });

  it('names file, key and expected type on a wrong type', () => {
    rejects(() => load({ 'config.toml': '[search]\ntop_k = "five"\n' }), 'config.toml', 'search.top_k', 'integer');
    rejects(() => load({ 'config.toml': '[privacy]\nredact = "yes"\n' }), 'privacy.redact', 'true or false');
    rejects(() => load({ 'config.toml': '[search]\nhalf_life_days = -1\n' }), 'search.half_life_days', 'at least 0');
    rejects(() => load({ 'config.toml': '' }, { MEMORY_SEARCH_TOP_K: 'lots' }), 'MEMORY_SEARCH_TOP_K', 'integer');
  });

  it('rejects machine and project names that are unsafe in file names', () => {
    for (const bad of ['a/b', '..', 'my laptop', 'x\\y']) {
      rejects(() => load({ 'config.toml': `[general]\nmachine_name = ${JSON.stringify(bad)}\n` }), 'general.machine_name', 'file names');
    }
    rejects(() => load({ 'config.toml': '[general]\nproject = "../etc"\n' }), 'general.project');
    rejects(() => load({ 'config.toml': '[general]\nproject = "my app"\n' }), 'general.project', 'file names');
  });

  it('takes a project named in another script, in the form file names hold (IDNA\'s ASCII form, read back as written)', () => {
    assert.equal(load({ 'config.toml': '[general]\nproject = "決済"\n' }).config.general.project, 'xn--1tw26a');
    assert.equal(load({ 'config.toml': '' }, { MEMORY_PROJECT: 'メモ' }).config.general.project, 'xn--4dkc');
    assert.equal(load({ 'config.toml': '[general]\nproject = "api.v2"\n' }).config.general.project, 'api.v2', 'a file-name-safe name stays as written');
  });

  it('takes a machine named in another script the same way: 会社 and 自宅 stay two machines, read back as written', () => {
    const office = load({ 'config.local.toml': '[general]\nmachine_name = "会社"\n' }).config.general.machine_name;
    const home = load({ 'config.toml': '' }, { MEMORY_MACHINE_NAME: '自宅' }).config.general.machine_name;
    assert.match(office, /^xn--[a-z0-9-]+$/);
    assert.notEqual(office, home);
    assert.deepEqual([machineLabel(office), machineLabel(home)], ['会社', '自宅']);
    assert.equal(load({ 'config.local.toml': '[general]\nmachine_name = "desk-2"\n' }).config.general.machine_name, 'desk-2', 'an ASCII name stays as written');
  });

  it('names where a TOML text breaks: the key on the line, a header as written or cut where it breaks', () => {
    const text = '[general]\nx = 1\n[privacy]\nredact = true\n[privacy]\nsecret_formats = ["acme_*"]\n[search\ntop_k = 4\n[[teams]]\n';
    assert.equal(keyAtLine(text, 2), 'general.x');
    assert.equal(keyAtLine(text, 5), '[privacy]', 'a table defined twice');
    assert.equal(keyAtLine(text, 6), 'privacy.secret_formats');
    assert.equal(keyAtLine(text, 7), '[search', 'a header that does not close');
    assert.equal(keyAtLine(text, 9), '[[teams]]');
  });

  it('reports invalid TOML with the file name', () => {
    rejects(() => load({ 'config.toml': '[general\nmachine_name = 1' }), 'config.toml', 'invalid TOML');
  });

  it('warns about unknown keys instead of failing', () => {
    const { warnings } = load({ 'config.toml': '[search]\ntopk = 3\n[nonsense]\na = 1\n' });
    assert.deepEqual(warnings.map((w) => w.key).sort(), ['nonsense', 'search.topk']);
  });

  it('an explicit config path that does not exist is an error', () => {
    assert.throws(() => loadConfig({ configPath: join(dir, 'nope.toml'), env: {} }), /config file not found/);
  });

  it('sanitizes hostnames into safe machine names', () => {
    assert.equal(sanitizeName('Taro’s MacBook Pro'), 'Taro-s-MacBook-Pro');
    assert.equal(sanitizeName('....'), 'machine');
  });
});
