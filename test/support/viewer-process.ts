/** The viewer as a process (`memory ui`), and plain HTTP to it: for the viewer's tests and the code-aware ones. */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { request } from 'node:http';
import { CLI } from './helpers.js';

export interface Running {
  child: ChildProcess;
  url: string;
  port: number;
  token: string;
}

/** `memory ui --no-open` with a config, or the default home's (an environment: a machine's HOME); its URL, port and token from the first line. */
export async function startUi(w: { config?: string }, env?: NodeJS.ProcessEnv): Promise<Running> {
  const child = spawn(process.execPath, [CLI, ...(w.config ? ['--config', w.config] : []), 'ui', '--no-open'], { stdio: ['ignore', 'pipe', 'pipe'], ...(env ? { env: { ...process.env, ...env } } : {}) });
  const first = await new Promise<string>((resolve, reject) => {
    let buf = '';
    child.stdout?.on('data', (d: Buffer) => {
      buf += d.toString();
      if (buf.includes('\n')) resolve(buf.split('\n')[0] as string);
    });
    child.once('exit', (code) => reject(new Error(`ui exited with ${code}`)));
  });
  const m = /^Memory viewer: (http:\/\/127\.0\.0\.1:(\d+)\/\?token=([A-Za-z0-9_-]{20,}))$/.exec(first);
  assert.ok(m, `first stdout line: ${first}`);
  return { child, url: m[1] as string, port: Number(m[2]), token: m[3] as string };
}

export function http(port: number, path: string, opts: { method?: string; headers?: Record<string, string>; body?: string } = {}): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, method: opts.method ?? 'GET', headers: { host: `127.0.0.1:${port}`, ...opts.headers } }, (res) => {
      let body = '';
      res.on('data', (d: Buffer) => (body += d.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', reject);
    if (opts.body) req.write(opts.body);
    req.end();
  });
}

