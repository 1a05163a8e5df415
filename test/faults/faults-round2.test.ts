/**
 * Faults a probe found (issue 27): a damaged capture queue entry and a killed worker that is
 * not reaped yet. Real files, real processes.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { closeSync, constants, existsSync, mkdirSync, openSync, readdirSync, readFileSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { enqueue, queueDirFor, readQueue, workerLockFor } from '../../src/app/capture/queue.js';
import { appendAlias, parseAliases, readAliasText } from '../../src/project/aliases.js';
import { acquireLock, handOverLock, isZombie, processAlive } from '../../src/export/lock.js';
import { CLI, makeWorld, rec, runCli, tempDir, writeJsonl } from '../support/helpers.js';
import { assistant, text, transcript, user } from '../support/transcript-builder.js';

describe('a damaged capture queue entry', () => {
  it('is set aside with a log line; the good entries are read, in order', () => {
    const d = tempDir();
    try {
      const dir = join(d.dir, 'queue');
      enqueue(dir, { transcript: '/t/one.jsonl', push: true, flush: false, at: '2026-12-01T10:00:00.000Z' });
      enqueue(dir, { transcript: '/t/two.jsonl', push: true, flush: false, at: '2026-12-01T09:00:00.000Z' });
      writeFileSync(join(dir, 'no-at.json'), JSON.stringify({ transcript: '/t/three.jsonl', push: true, flush: false }));
      writeFileSync(join(dir, 'cut.json'), '{"transcript": "/t/fo');
      writeFileSync(join(dir, 'null.json'), 'null');
      const told: string[] = [];
      const q = readQueue(dir, (m) => told.push(m));
      assert.deepEqual(q.map((e) => e.transcript), ['/t/two.jsonl', '/t/one.jsonl']);
      assert.equal(told.length, 3, told.join('\n'));
      assert.ok(told.every((m) => /set aside/.test(m)));
      assert.deepEqual(readdirSync(dir).filter((n) => n.endsWith('.set-aside')).sort(), ['cut.json.set-aside', 'no-at.json.set-aside', 'null.json.set-aside']);
      // Read again: nothing thrown, nothing told twice.
      assert.equal(readQueue(dir, (m) => told.push(m)).length, 2);
      assert.equal(told.length, 3);
    } finally {
      d.cleanup();
    }
  });
});

describe('a killed worker that is not reaped yet', () => {
  it('counts as gone (a zombie answers signal 0 until its parent waits for it)', async (t) => {
    if (!existsSync('/proc/self/stat')) {
      t.skip('no /proc on this system: zombies cannot be told apart here');
      return;
    }
    // sh starts a short child, then becomes `sleep 5`, which never waits for it: the child,
    // once it exits, stays a zombie until sleep ends.
    const parent = spawn('sh', ['-c', 'sleep 0.05 & echo $!; exec sleep 5'], { stdio: ['ignore', 'pipe', 'ignore'] });
    try {
      const pid = await new Promise<number>((resolve) => parent.stdout.once('data', (b: Buffer) => resolve(Number(b.toString().trim()))));
      assert.ok(pid > 0);
      assert.equal(processAlive(pid), true, 'alive while it runs');
      const deadline = Date.now() + 5000;
      while (!isZombie(pid) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      assert.equal(isZombie(pid), true, 'it is a zombie now');
      assert.equal(processAlive(pid), false);
      assert.equal(processAlive(process.pid), true, 'a live process is still alive');
    } finally {
      parent.kill('SIGKILL');
    }
  });
});


describe('search under an exclusion', () => {
  it('finds the visible memories however many hidden ones match better (hidden ones never use up a limit)', async () => {
    const { encodeEntry } = await import('../../src/export/jsonl.js');
    const { openCache } = await import('../../src/store/cache.js');
    const { search } = await import('../../src/search/search.js');
    const d = tempDir();
    try {
      const exportDir = join(d.dir, 'export');
      mkdirSync(exportDir);
      const t = (i: number) => new Date(Date.UTC(2026, 10, 1, 0, i)).toISOString();
      const lines = [
        ...Array.from({ length: 80 }, (_, i) => encodeEntry({ v: 1, id: `hidden-${i}`, machine: 'm', project: 'acme-api', timestamp: t(i), question: `deploy deploy the acme api ${i}`, answer: 'deploy steps' })),
        ...Array.from({ length: 5 }, (_, i) => encodeEntry({ v: 1, id: `shown-${i}`, machine: 'm', project: 'web', timestamp: t(100 + i), question: `how do we deploy the site ${i}`, answer: 'npm run ship' })),
      ];
      writeFileSync(join(exportDir, '2026-11_m.jsonl'), `${lines.join('\n')}\n`);
      const { store } = openCache({ dbPath: join(d.dir, 'cache.db'), exportDir, model: 'none', dim: 0 });
      try {
        const r = await search({ store, now: Date.UTC(2026, 11, 1) }, { query: 'deploy', mode: 'keyword', filters: {}, topK: 10, halfLifeDays: 30, rrfK: 60, hide: (row) => row.project === 'acme-api' });
        assert.deepEqual(r.hits.map((h) => h.id).sort(), ['shown-0', 'shown-1', 'shown-2', 'shown-3', 'shown-4']);
      } finally {
        store.close();
      }
    } finally {
      d.cleanup();
    }
  });
});

describe("init's guard against pushing memories into the checkout's origin", () => {
  it('compares repositories, not spellings: ssh, scp and https of one host path; a local path, its file:// URL and a symlink', async () => {
    const { sameRepositoryUrl } = await import('../../src/app/sync/init.js');
    const { symlinkSync } = await import('node:fs');
    assert.equal(sameRepositoryUrl('git@github.com:acme/api.git', 'https://github.com/acme/api'), true);
    assert.equal(sameRepositoryUrl('ssh://git@github.com/acme/api.git', 'https://user:tok@github.com/Acme/API/'), true);
    assert.equal(sameRepositoryUrl('git@github.com:acme/api.git', 'git@github.com:acme/api-memories.git'), false);
    assert.equal(sameRepositoryUrl('git@github.com:acme/api.git', 'git@gitlab.com:acme/api.git'), false);
    const d = tempDir();
    try {
      const bare = join(d.dir, 'origin.git');
      mkdirSync(bare);
      symlinkSync(bare, join(d.dir, 'link.git'));
      assert.equal(sameRepositoryUrl(bare, `file://${bare}`), true);
      assert.equal(sameRepositoryUrl(`${bare}/`, join(d.dir, 'link.git')), true);
      assert.equal(sameRepositoryUrl(bare, join(d.dir, 'other.git')), false);
      assert.equal(sameRepositoryUrl(bare, 'git@github.com:acme/api.git'), false);
    } finally {
      d.cleanup();
    }
  });
});

describe('a hook\'s input through a pipe, however the agent writes it', () => {
  /** The recall hook on a world holding one memory of the question, its input fed to its stdin pipe by `feed`. */
  async function recallFedBy(feed: (stdin: NodeJS.WritableStream & { destroy: () => void }, input: string) => Promise<void>): Promise<string[]> {
    const w = makeWorld();
    try {
      writeJsonl(join(w.exportDir, '2026-11_laptop.jsonl'), [
        rec({ id: 'lock-fix', question: 'The sqlite lock timeout in the importer keeps failing the nightly heron job', answer: 'Set busy_timeout to 5000 and batch the heron writes in one transaction.' }),
        ...Array.from({ length: 30 }, (_, i) => rec({ id: `other-${i}`, question: `unrelated note ${i} about the dashboard`, answer: `Colours ${i}.` })),
      ]);
      assert.equal(runCli(['-c', w.config, 'rebuild']).code, 0);
      const child = spawn(process.execPath, [CLI, '-c', w.config, 'recall', '--json'], { stdio: ['pipe', 'pipe', 'pipe'], env: Object.fromEntries(Object.entries(process.env).filter(([k]) => k !== 'MEMORY_CONFIG')) });
      let out = '';
      child.stdout.on('data', (b: Buffer) => (out += b.toString()));
      const exited = new Promise<number | null>((resolve, reject) => {
        const t = setTimeout(() => {
          child.kill('SIGKILL');
          reject(new Error('the hook waited for the end of the pipe'));
        }, 15_000);
        child.on('exit', (c) => {
          clearTimeout(t);
          resolve(c);
        });
      });
      await feed(child.stdin, JSON.stringify({ session_id: 's-夜間', cwd: w.dir, hook_event_name: 'UserPromptSubmit', prompt: 'how did we fix the sqlite lock timeout of the nightly heron job' }));
      assert.equal(await exited, 0);
      child.stdin.destroy();
      return (JSON.parse(out) as { recalled: Array<{ id: string }> }).recalled.map((r) => r.id);
    } finally {
      w.cleanup();
    }
  }
  const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

  it('written and kept open: reads the input it was given and exits, without waiting for the end of the pipe', async () => {
    assert.deepEqual(await recallFedBy(async (stdin, input) => void stdin.write(input)), ['lock-fix'], 'the input written before the pipe stayed open was read whole');
  });

  it('written in parts with pauses between, then closed: read whole', async () => {
    const fed = await recallFedBy(async (stdin, input) => {
      const bytes = Buffer.from(input);
      const cut = bytes.indexOf(Buffer.from('夜')) + 1;
      await pause(300); // nothing yet when the hook starts reading
      stdin.write(bytes.subarray(0, cut));
      await pause(300);
      stdin.write(bytes.subarray(cut));
      stdin.end();
    });
    assert.deepEqual(fed, ['lock-fix']);
  });

  it('the bytes as written, a character cut between two writes included (a real pipe, read as a hook reads it)', async () => {
    const { readHookStdin } = await import('../../src/app/input.js');
    const { createReadStream } = await import('node:fs');
    const d = tempDir();
    try {
      const fifo = join(d.dir, 'stdin');
      assert.equal(spawnSync('mkfifo', [fifo]).status, 0);
      const input = JSON.stringify({ session_id: 's', prompt: '夜間ジョブのロック待ちはどう直した？ the heron job' });
      // The writer: the first part (a three-byte character cut after its first byte), a pause, the rest.
      // Its end is awaited from its start: it may exit before the read below returns.
      const writer = spawn(process.execPath, ['-e', `const fs = require('fs'); const b = Buffer.from(${JSON.stringify(input)}); const fd = fs.openSync(${JSON.stringify(fifo)}, 'w'); const cut = b.indexOf(Buffer.from('夜')) + 1; fs.writeSync(fd, b.subarray(0, cut)); setTimeout(() => { fs.writeSync(fd, b.subarray(cut)); fs.closeSync(fd); }, 300);`], { stdio: 'ignore' });
      const writerExit = new Promise((r) => writer.on('exit', r));
      const fd = openSync(fifo, 'r');
      await pause(100);
      const got = await readHookStdin({ stdin: createReadStream('', { fd }), stdinFd: fd });
      assert.equal(got, input);
      await writerExit;
    } finally {
      d.cleanup();
    }
  });

  it('written and closed before the hook reads: read whole', async () => {
    assert.deepEqual(await recallFedBy(async (stdin, input) => void stdin.end(input)), ['lock-fix']);
  });

  it('kept open and never written, or cut off half way and kept open: every light hook gives up after the silence and exits 0 (its stdin a socket, as Claude Code gives it)', async () => {
    const w = makeWorld();
    try {
      const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => k !== 'MEMORY_CONFIG'));
      const input = JSON.stringify({ session_id: 's-silent', cwd: w.dir, hook_event_name: 'UserPromptSubmit', prompt: 'how did we fix the sqlite lock timeout' });
      for (const command of ['recall', 'file-recall', 'session-end']) {
        for (const given of ['', input.slice(0, 20)]) {
          const child = spawn(process.execPath, [CLI, '-c', w.config, command], { stdio: ['pipe', 'pipe', 'pipe'], env });
          let err = '';
          child.stderr.on('data', (b: Buffer) => (err += b.toString()));
          if (given) child.stdin.write(given);
          const code = await new Promise<number | null | 'waited'>((resolve) => {
            const t = setTimeout(() => {
              child.kill('SIGKILL');
              resolve('waited');
            }, 15_000);
            child.on('exit', (c) => {
              clearTimeout(t);
              resolve(c);
            });
          });
          child.stdin.destroy();
          assert.equal(code, 0, `${command} with ${given ? 'half an input' : 'nothing'} on an open stdin: ${err}`);
        }
      }
    } finally {
      w.cleanup();
    }
  });
});

describe("a hook's output when its reader is gone", () => {
  it('the line it writes to fd 1 meets a closed pipe (EPIPE): exit 0, nothing said; the same hook with a reader gives its line', () => {
    const w = makeWorld();
    const d = tempDir();
    try {
      writeJsonl(join(w.exportDir, '2026-11_laptop.jsonl'), [rec({ id: 'lock-fix', question: 'The sqlite lock timeout in the importer keeps failing the nightly heron job', answer: 'Set busy_timeout to 5000.' })]);
      assert.equal(runCli(['-c', w.config, 'rebuild']).code, 0);
      const input = JSON.stringify({ session_id: 's-gone', cwd: w.dir, hook_event_name: 'UserPromptSubmit', prompt: 'how did we fix the sqlite lock timeout of the nightly heron job' });
      const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => k !== 'MEMORY_CONFIG'));
      const run = (stdout: 'pipe' | number) => spawnSync(process.execPath, [CLI, '-c', w.config, 'recall'], { input, stdio: ['pipe', stdout, 'pipe'], env, encoding: 'utf8' });
      const read = run('pipe');
      assert.equal(read.status, 0, read.stderr);
      assert.match(read.stdout, /"additionalContext":".*busy_timeout to 5000/, 'with a reader: the line (a positive check)');
      // A pipe whose only reader has closed: the write end is this hook's stdout.
      const fifo = join(d.dir, 'out');
      assert.equal(spawnSync('mkfifo', [fifo]).status, 0);
      const reader = openSync(fifo, constants.O_RDONLY | constants.O_NONBLOCK);
      const writer = openSync(fifo, constants.O_WRONLY);
      closeSync(reader);
      try {
        const gone = run(writer);
        assert.equal(gone.status, 0, gone.stderr);
        assert.equal(gone.stderr, '');
      } finally {
        closeSync(writer);
      }
    } finally {
      d.cleanup();
      w.cleanup();
    }
  });
});

describe("a db_path folder the person chose", () => {
  it('keeps its mode when the log writes beside the cache; the log itself is private', async () => {
    const { chmodSync, statSync } = await import('node:fs');
    const { fileLogger, logPathFor } = await import('../../src/app/log.js');
    const d = tempDir();
    try {
      const chosen = join(d.dir, 'shared-caches');
      mkdirSync(chosen);
      chmodSync(chosen, 0o755);
      const log = fileLogger(logPathFor(join(chosen, 'memory.db')));
      log.info('a line');
      assert.equal(statSync(chosen).mode & 0o777, 0o755, 'the folder is left as the person made it');
      assert.equal(statSync(log.path).mode & 0o077, 0, 'the log is readable by its owner only');
      // Our own .cache folder is still made private.
      const own = join(d.dir, 'home', '.cache');
      mkdirSync(own, { recursive: true });
      chmodSync(own, 0o755);
      fileLogger(logPathFor(join(own, 'memory.db'))).warn('another line');
      assert.equal(statSync(own).mode & 0o777, 0o700);
    } finally {
      d.cleanup();
    }
  });
});

describe('memory status on a full disk', () => {
  it('says the cache could not be updated and shows it as it was, exit 0; the next run with room catches up', () => {
    const w = makeWorld();
    try {
      const file = join(w.exportDir, '2026-11_laptop.jsonl');
      writeJsonl(file, Array.from({ length: 20 }, (_, i) => rec({ question: `Where does the heron cache live ${i}?`, answer: `In the heron folder, number ${i}.` })));
      const first = runCli(['-c', w.config, 'status', '--json']);
      assert.equal(first.code, 0, first.stderr);
      const dbPath = (JSON.parse(first.stdout) as { db_path: string }).db_path;
      // Then the file is replaced by a few megabytes of other memories, and the cache's disk has no room left:
      // a file-size limit on the process, which the writes into the database run into.
      writeJsonl(file, Array.from({ length: 3000 }, (_, i) => rec({ question: `Question ${i} about the osprey queue`, answer: `Osprey answer ${i} `.repeat(60) })));
      const room = Math.ceil(Math.max(...['', '-wal'].map((x) => (existsSync(dbPath + x) ? statSync(dbPath + x).size : 0))) / 512) + 8;
      const full = spawnSync('bash', ['-c', `ulimit -f ${room}; exec "$0" "$@"`, process.execPath, CLI, '-c', w.config, 'status'], { encoding: 'utf8', env: { ...process.env, MEMORY_CONFIG: '' } });
      assert.equal(full.status, 0, full.stdout + full.stderr);
      assert.doesNotMatch(full.stdout + full.stderr, /unexpected error/);
      assert.match(full.stdout, /not updated: (?:the disk is full|a file size limit was reached|the disk refused a write)/);
      assert.match(full.stdout, /memories\s+20 live/, 'the counts as of the last update');
      const after = runCli(['-c', w.config, 'status', '--json']);
      assert.equal(after.code, 0, after.stderr);
      assert.equal((JSON.parse(after.stdout) as { records: number }).records, 3000, 'with room again, the cache catches up');
    } finally {
      w.cleanup();
    }
  });
});

describe('a stale lock that many processes find at once', () => {
  it('is taken over by one at a time: never two holders, every one of them gets it in turn', async () => {
    const d = tempDir();
    try {
      const lock = join(d.dir, 'repo.lock');
      const log = join(d.dir, 'holders.log');
      // The owner of the lock is dead (its pid is gone).
      const dead = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
      writeFileSync(lock, JSON.stringify({ pid: Number(dead.stdout), host: (await import('node:os')).hostname(), since: new Date(0).toISOString() }));
      const lockModule = new URL('../../src/export/lock.js', import.meta.url).href;
      const script = `
        import { acquireLock, sleepSync } from ${JSON.stringify(lockModule)};
        import { appendFileSync } from 'node:fs';
        for (let i = 0; i < 3; i++) {
          const release = acquireLock(${JSON.stringify(lock)}, { timeoutMs: 60000 });
          appendFileSync(${JSON.stringify(log)}, 'enter ' + process.pid + '\\n');
          sleepSync(15);
          appendFileSync(${JSON.stringify(log)}, 'exit ' + process.pid + '\\n');
          release();
        }`;
      const runs = Array.from({ length: 6 }, () => new Promise<number>((resolve) => spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: 'ignore' }).once('exit', (c) => resolve(c ?? -1))));
      assert.deepEqual(await Promise.all(runs), [0, 0, 0, 0, 0, 0]);
      const lines = readFileSync(log, 'utf8').trim().split('\n');
      assert.equal(lines.length, 6 * 3 * 2, 'every process held it three times');
      for (let i = 0; i < lines.length; i += 2) {
        const [enter, exit] = [lines[i] as string, lines[i + 1] as string];
        assert.match(enter, /^enter \d+$/);
        assert.equal(exit, enter.replace('enter', 'exit'), `line ${i}: one holder at a time`);
      }
      assert.equal(existsSync(`${lock}.takeover`), false, 'no takeover guard left');
    } finally {
      d.cleanup();
    }
  });
});

describe('two hooks on a clone\'s first use', () => {
  it('mint one clone id between them, not two (each would take the other for another clone writing as this machine)', async () => {
    const d = tempDir();
    try {
      const gitDir = join(d.dir, '.git');
      mkdirSync(gitDir);
      const stateModule = new URL('../../src/sync/state.js', import.meta.url).href;
      const script = `import { readSyncState } from ${JSON.stringify(stateModule)}; process.stdout.write(readSyncState(${JSON.stringify(gitDir)}).clone_id);`;
      const ids = await Promise.all(
        Array.from({ length: 8 }, () => new Promise<string>((resolve) => {
          const c = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'ignore'] });
          let out = '';
          c.stdout.on('data', (b: Buffer) => (out += b.toString()));
          c.once('exit', () => resolve(out));
        })),
      );
      assert.ok(ids.every((id) => /^[0-9a-f]{8}$/.test(id)), ids.join(' '));
      assert.equal(new Set(ids).size, 1, `one id: ${ids.join(' ')}`);
      assert.equal((JSON.parse(readFileSync(join(gitDir, 'memory-engine-sync.json'), 'utf8')) as { clone_id: string }).clone_id, ids[0]);
      assert.deepEqual(readdirSync(gitDir).filter((n) => n.includes('.new-')), [], 'no temporary file left');
    } finally {
      d.cleanup();
    }
  });
});

describe('a project merge from a machine whose clock ran ahead', () => {
  it('does not outrank the merges made after it: a new line is dated after the latest', () => {
    const d = tempDir();
    try {
      // A merge written a year ahead (a wrong clock), then today's merge of the same name elsewhere.
      appendAlias(d.dir, { from: 'old-api', to: 'api-next-year', machine: 'skewed', at: '2027-12-01T00:00:00.000Z' });
      appendAlias(d.dir, { from: 'old-api', to: 'api', machine: 'laptop', at: '2026-12-01T10:00:00.000Z' });
      const text = readAliasText(d.dir);
      const lines = text.trim().split('\n').map((l) => JSON.parse(l) as { to: string; at: string });
      assert.equal(lines[1]?.to, 'api');
      assert.ok(Date.parse(lines[1]?.at ?? '') > Date.parse('2027-12-01T00:00:00.000Z'), `held after the latest: ${lines[1]?.at}`);
      assert.equal(parseAliases(text).get('old-api')?.to, 'api', 'the later merge holds');
      // With a sane clock, the time is the clock's.
      appendAlias(d.dir, { from: 'web', to: 'site', machine: 'laptop', at: '2028-01-01T00:00:00.000Z' });
      assert.equal((JSON.parse(readAliasText(d.dir).trim().split('\n')[2] as string) as { at: string }).at, '2028-01-01T00:00:00.000Z');
    } finally {
      d.cleanup();
    }
  });
});

describe('a capture worker that starts before its hook hands it the lock', () => {
  it('waits for the hand-over and drains the queue, instead of leaving it stranded', async () => {
    const w = makeWorld();
    try {
      const t = transcript('s-handover', '/home/u/app');
      user(t, 'Where does the kestrel importer keep its state?');
      assistant(t, [{ text: 'In the kestrel state table, one row per feed.' }]);
      const path = join(w.dir, 's-handover.jsonl');
      writeFileSync(path, text(t));
      enqueue(queueDirFor(w.dir), { transcript: path, push: false, flush: true, at: new Date().toISOString() });
      // This process plays the Stop hook: it holds the worker lock, starts the worker, and
      // hands the lock over only after the worker is already running (a loaded machine).
      const lock = workerLockFor(w.dir);
      mkdirSync(join(lock, '..'), { recursive: true });
      const release = acquireLock(lock, { timeoutMs: 0 });
      const child = spawn(process.execPath, [CLI, '--config', w.config, 'session-end', '--worker'], { stdio: 'ignore', env: { ...process.env, MEMORY_CONFIG: '' } });
      const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
      // Long after the worker has started and looked at its lock (a worker that does not wait has left by now).
      await new Promise((r) => setTimeout(r, 3000));
      assert.ok(child.pid !== undefined && processAlive(child.pid), 'the worker waits for its lock');
      handOverLock(lock, child.pid as number);
      void release; // the lock is the worker's now; it removes it when done
      assert.equal(await exited, 0);
      const stored = readdirSync(w.exportDir).filter((n) => n.endsWith('.jsonl')).map((n) => readFileSync(join(w.exportDir, n), 'utf8')).join('');
      assert.match(stored, /kestrel state table/, 'the queued turn was captured');
      assert.equal(readQueue(queueDirFor(w.dir)).length, 0, 'and the queue is empty');
      assert.equal(existsSync(lock), false, 'the worker removed its lock');
    } finally {
      w.cleanup();
    }
  });
});

describe('a lock file without its owner record (its writer died between create and write)', () => {
  it('is taken over once this process has seen it so for two seconds, not before, whatever the file times say', () => {
    const d = tempDir();
    try {
      const lock = join(d.dir, 'half.lock');
      writeFileSync(lock, '');
      // File times far in the past (as under a faked clock): no reason by itself to take it.
      utimesSync(lock, new Date(Date.now() - 3600_000), new Date(Date.now() - 3600_000));
      assert.throws(() => acquireLock(lock, { timeoutMs: 500, purpose: 'the test' }), /is busy/);
      const t = performance.now();
      const release = acquireLock(lock, { timeoutMs: 10_000, purpose: 'the test' });
      assert.ok(performance.now() - t > 1000, 'only after it stayed without a record');
      assert.match(readFileSync(lock, 'utf8'), new RegExp(`"pid":${process.pid}`));
      release();
      assert.equal(existsSync(lock), false);
    } finally {
      d.cleanup();
    }
  });
});
