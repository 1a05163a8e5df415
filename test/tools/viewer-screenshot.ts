/**
 * docs/viewer.png, from the project's own synthetic memories (test/support/viewer-data.ts):
 * `npm run docs:screenshot` (needs Chromium and a Japanese font: apt-get install -y chromium fonts-noto-cjk).
 */
import { spawn, execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { encodeEntry } from '../../src/export/jsonl.js';
import { VIEWER_MEMORIES } from '../support/viewer-data.js';

const REPO = resolve(fileURLToPath(import.meta.url), '..', '..', '..', '..');
const CLI = join(REPO, 'dist', 'src', 'cli', 'main.js');
const dir = mkdtempSync(join(tmpdir(), 'memory-shot-'));
try {
  mkdirSync(join(dir, 'export'));
  writeFileSync(join(dir, 'export', '2026-11_laptop.jsonl'), `${VIEWER_MEMORIES.filter((m) => m.session_id !== 'sess-xss').map((m) => encodeEntry(m)).join('\n')}\n`);
  const config = join(dir, 'config.toml');
  writeFileSync(config, `[general]\nmachine_name = "laptop"\n[embedding]\nmodel = ${JSON.stringify(join(REPO, 'test', 'fixtures', 'tiny-model'))}\ndtype = "fp32"\nallow_remote = false\n`);
  execFileSync(process.execPath, [CLI, '-c', config, 'rebuild'], { stdio: 'ignore' });
  const child = spawn(process.execPath, [CLI, '-c', config, 'ui', '--no-open'], { stdio: ['ignore', 'pipe', 'ignore'] });
  const url = await new Promise<string>((ok) => child.stdout.on('data', (d: Buffer) => ok(d.toString().split('\n')[0]!.replace('Memory viewer: ', ''))));
  const exe = ['/usr/bin/chromium', '/usr/bin/chromium-browser'].find((p) => existsSync(p));
  if (!exe) throw new Error('no Chromium: apt-get install -y chromium');
  const browser = await chromium.launch({ executablePath: exe, args: ['--no-sandbox'] });
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  await page.goto(url);
  await page.getByTestId('memory-item').first().waitFor();
  // A search in Japanese and English at once, the Japanese memory open: the picture shows
  // both scripts (it needs a CJK font: apt-get install -y fonts-noto-cjk).
  if (execFileSync('fc-list', [':lang=ja', 'family'], { encoding: 'utf8' }).trim() === '') throw new Error('no Japanese font: apt-get install -y fonts-noto-cjk');
  await page.getByTestId('search-input').fill('決済 timeout タイムアウト');
  await page.getByTestId('search-input').press('Enter');
  const ja = page.locator('[data-testid="memory-item"]', { hasText: '決済' }).first();
  await ja.waitFor();
  await ja.click();
  await page.getByTestId('memory-detail').waitFor();
  await page.waitForTimeout(300);
  const out = join(REPO, 'docs', 'viewer.png');
  mkdirSync(join(REPO, 'docs'), { recursive: true });
  await page.screenshot({ path: out });
  await browser.close();
  child.kill('SIGINT');
  process.stdout.write(`${out}\n`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
