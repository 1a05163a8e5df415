/**
 * The files a shell command names (how Codex reads them), on real files: only what is there
 * counts, seen from where the command ran.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { commandFiles, commandMoves } from '../../src/capture/command-files.js';
import { movedFiles, touchedFiles } from '../../src/cli/file-recall-hook.js';
import { patchMoves } from '../../src/capture/patch-files.js';
import { tempDir } from '../support/helpers.js';

let dir: string;
let cleanup: () => void;
const f = (p: string) => join(dir, p);

describe('the files a shell command names', () => {
  before(() => {
    ({ dir, cleanup } = tempDir('memory-cmdfiles-'));
    for (const p of ['src/checkout.ts', 'src/cart.ts', 'src/tax.ts', 'src/users.ts', 'README.md', 'my notes.md', 'in.txt', 'out.txt', 'cat']) {
      mkdirSync(join(dir, p, '..'), { recursive: true });
      writeFileSync(f(p), 'x\n');
    }
  });
  after(() => cleanup());

  it('the ways an agent reads a file: cat, sed -n, head, nl piped into sed, rg over a file, git diff --', () => {
    const cases: Array<[string, string[]]> = [
      ['cat src/checkout.ts', ['src/checkout.ts']],
      ["sed -n '1,120p' src/checkout.ts", ['src/checkout.ts']],
      ['head -n 40 README.md', ['README.md']],
      ["nl -ba src/checkout.ts | sed -n '40,90p'", ['src/checkout.ts']],
      ['rg -n "retry|capture" src/checkout.ts src/cart.ts', ['src/checkout.ts', 'src/cart.ts']],
      ['git diff -- src/tax.ts', ['src/tax.ts']],
      ['cat "my notes.md"', ['my notes.md']],
      ['wc -l < in.txt', ['in.txt']],
      ['sort in.txt > out.txt', ['in.txt', 'out.txt']],
      [`cat ${f('src/users.ts')}`, ['src/users.ts']],
      ['sed -n 1,20p src/checkout.ts && sed -n 1,20p src/checkout.ts', ['src/checkout.ts']],
    ];
    for (const [command, want] of cases) assert.deepEqual(commandFiles(command, dir), want.map(f), command);
  });

  it('a cd in the command is followed; an argv with its shell is read as its script', () => {
    assert.deepEqual(commandFiles('cd src && cat checkout.ts', dir), [f('src/checkout.ts')]);
    assert.deepEqual(commandFiles(['bash', '-lc', "sed -n '1,80p' src/cart.ts"], dir), [f('src/cart.ts')]);
    assert.deepEqual(commandFiles(['cat', 'src/tax.ts'], dir), [f('src/tax.ts')]);
    assert.deepEqual(commandFiles('cat README.md; cd "$WORK" && cat README.md src/cart.ts', dir), [f('README.md')], 'after a cd into a variable, where it runs is unknown');
  });

  it('names nothing: no file there, a folder, options, globs, variables, the program itself', () => {
    for (const command of ['npm test', 'ls src', 'cat src/missing.ts', 'rg -n retry src', 'cat src/*.ts', 'cat $HOME/src/checkout.ts', 'cat "${DIR}/src/checkout.ts"', 'echo $(cat', 'cat', './cat', 'git show HEAD:src/checkout.ts', '--file=src/checkout.ts', '']) {
      // The program word is never a file read (`./cat` runs it); `cat` alone names nothing.
      assert.deepEqual(commandFiles(command, dir), [], command);
    }
    assert.deepEqual(commandFiles(undefined, dir), []);
    assert.deepEqual(commandFiles({ cmd: 'cat src/checkout.ts' }, dir), []);
  });

  it('a long command is read for its first 4,096 characters: a file written through a heredoc', () => {
    const body = Array.from({ length: 3000 }, (_, i) => `const x${i} = ${i};`).join('\n');
    assert.deepEqual(commandFiles(`cat > src/cart.ts <<'EOF'\n${body}\nEOF\ncat src/tax.ts`, dir), [f('src/cart.ts')], 'what comes after the first 4,096 characters is not read');
  });

  it('at most three files, in the order named', () => {
    assert.deepEqual(commandFiles('cat src/tax.ts src/users.ts src/cart.ts src/checkout.ts', dir), ['src/tax.ts', 'src/users.ts', 'src/cart.ts'].map(f));
  });

  it('the hook reads a command only from a shell tool; a patch is read as a patch', () => {
    const bash = (command: unknown, tool = 'Bash') => touchedFiles({ tool_name: tool, tool_input: { command } }, dir);
    assert.deepEqual(bash('cat src/checkout.ts'), [f('src/checkout.ts')]);
    assert.deepEqual(bash('cat src/checkout.ts', 'exec_command'), [f('src/checkout.ts')]);
    assert.deepEqual(touchedFiles({ tool_name: 'exec_command', tool_input: { cmd: 'cat src/cart.ts' } }, dir), [f('src/cart.ts')]);
    assert.deepEqual(bash('cat src/checkout.ts', 'WebFetch'), [], 'another tool: its input is not a command');
    const patch = ['*** Begin Patch', '*** Update File: src/new.ts', '@@', '-cat src/checkout.ts', '+cat src/cart.ts', '*** End Patch'].join('\n');
    assert.deepEqual(touchedFiles({ tool_name: 'apply_patch', tool_input: { command: patch } }, dir), [f('src/new.ts')], 'a patch names its files; its lines are not commands');
    assert.deepEqual(bash(patch), [f('src/new.ts')]);
    const move = ['*** Begin Patch', '*** Update File: src/cart.ts', '*** Move to: src/basket/cart.ts', '@@', '-a', '+b', '*** End Patch'].join('\n');
    assert.deepEqual(touchedFiles({ tool_name: 'apply_patch', tool_input: { command: move } }, dir), [f('src/cart.ts'), f('src/basket/cart.ts')], 'a file moved: where it was and where it goes');
  });

  it('what a command moved, read after it ran: git mv, mv to a new name, into a folder, several into one, a folder whole; a cd followed; a redirection is no name', () => {
    const moves = join(dir, 'moves');
    const run = (command: string, cwd = moves) => {
      const r = spawnSync('sh', ['-c', command], { cwd, encoding: 'utf8' });
      assert.equal(r.status, 0, `${command}: ${r.stderr}`);
      return commandMoves(command, cwd);
    };
    const m = (p: string) => join(moves, p);
    mkdirSync(join(moves, 'src', 'pay'), { recursive: true });
    mkdirSync(join(moves, 'lib'));
    for (const p of ['src/a.ts', 'src/b.ts', 'src/c.ts', 'src/d.ts', 'src/pay/e.ts', 'src/f.ts']) writeFileSync(m(p), 'x\n');
    spawnSync('git', ['init', '-q'], { cwd: moves });
    spawnSync('git', ['add', '-A'], { cwd: moves });
    assert.deepEqual(run('git mv src/a.ts src/a2.ts'), [{ from: m('src/a.ts'), to: m('src/a2.ts'), folder: false }]);
    assert.deepEqual(run('mv -v src/b.ts lib/ 2>/dev/null'), [{ from: m('src/b.ts'), to: m('lib/b.ts'), folder: false }], 'into a folder that was there');
    assert.deepEqual(run('mv src/c.ts src/d.ts lib'), [{ from: m('src/c.ts'), to: m('lib/c.ts'), folder: false }, { from: m('src/d.ts'), to: m('lib/d.ts'), folder: false }]);
    assert.deepEqual(run('mv src/pay src/billing'), [{ from: m('src/pay'), to: m('src/billing'), folder: true }], 'a folder to a new name');
    assert.deepEqual(run('cd src && git mv -f -- f.ts g.ts && ls'), [{ from: m('src/f.ts'), to: m('src/g.ts'), folder: false }]);
    assert.deepEqual(run('mv -v src/a2.ts src/a3.ts'), [{ from: m('src/a2.ts'), to: m('src/a3.ts'), folder: false }], 'an option is no source');
    writeFileSync(m('src/-dash.ts'), 'x\n');
    assert.deepEqual(run('mv -- src/-dash.ts src/dash.ts'), [{ from: m('src/-dash.ts'), to: m('src/dash.ts'), folder: false }]);
    assert.deepEqual(run('ls src; echo mv src/a3.ts'), [], 'no move, though the words are there');
    // git's own -C (several add up) and -c before mv; mv naming its folder first (-t, --target-directory=, in a group), or none (-T).
    for (const p of ['src/h.ts', 'src/i.ts', 'src/j.ts', 'src/k.ts', 'src/l.ts', 'src/qdir/q.ts']) {
      mkdirSync(join(m(p), '..'), { recursive: true });
      writeFileSync(m(p), 'x\n');
    }
    spawnSync('git', ['add', '-A'], { cwd: moves });
    assert.deepEqual(run('git -C moves/src mv h.ts h2.ts', dir), [{ from: m('src/h.ts'), to: m('src/h2.ts'), folder: false }], 'read from the folder -C names');
    assert.deepEqual(run('git -C moves -c core.quotePath=false -C src mv i.ts ../lib/i.ts', dir), [{ from: m('src/i.ts'), to: m('lib/i.ts'), folder: false }]);
    assert.deepEqual(run('mv -t lib src/j.ts src/k.ts'), [{ from: m('src/j.ts'), to: m('lib/j.ts'), folder: false }, { from: m('src/k.ts'), to: m('lib/k.ts'), folder: false }]);
    assert.deepEqual(run('mv -vt lib src/l.ts'), [{ from: m('src/l.ts'), to: m('lib/l.ts'), folder: false }]);
    assert.deepEqual(run('mv --target-directory=src lib/l.ts'), [{ from: m('lib/l.ts'), to: m('src/l.ts'), folder: false }]);
    mkdirSync(m('lib2'));
    assert.deepEqual(run('mv -T src/qdir lib2'), [{ from: m('src/qdir'), to: m('lib2'), folder: true }], 'onto the empty folder, not into it');
    assert.deepEqual(run('git -C src status --short && git -C lib2 log -1 --oneline 2>/dev/null; true'), [], 'git -C running something else moves nothing');
  });

  it('moves nothing: a move that did not happen (a dry run, no such file), a variable or a glob, another program', () => {
    const moves = join(dir, 'nomoves');
    mkdirSync(join(moves, 'src'), { recursive: true });
    writeFileSync(join(moves, 'src', 'a.ts'), 'x\n');
    spawnSync('git', ['init', '-q'], { cwd: moves });
    spawnSync('git', ['add', '-A'], { cwd: moves });
    for (const command of ['git mv -n src/a.ts src/z.ts', 'mv src/nothing.ts src/z.ts; true', 'mv $FROM src/z.ts; true', 'mv src/*.md src/z; true', 'cp src/a.ts src/copy.ts']) {
      spawnSync('sh', ['-c', command], { cwd: moves });
      assert.deepEqual(commandMoves(command, moves), [], command);
    }
    assert.ok(existsSync(join(moves, 'src', 'a.ts')), 'the source is still there (a positive check of the world)');
    // A move done, then the same command read while a variable stands for where: nothing.
    renameSync(join(moves, 'src', 'a.ts'), join(moves, 'src', 'z.ts'));
    assert.deepEqual(commandMoves('cd $D && mv src/a.ts src/z.ts', moves), []);
    assert.deepEqual(commandMoves('mv src/a.ts src/z.ts', moves), [{ from: join(moves, 'src', 'a.ts'), to: join(moves, 'src', 'z.ts'), folder: false }]);
  });

  it('a patch\'s moves: each Update File followed by its Move to; the hook takes them only when applied', () => {
    const text = ['*** Begin Patch', '*** Update File: src/x.ts', '*** Move to: src/y.ts', '@@', '-a', '+b', '*** Add File: src/new.ts', '+n', '*** Update File: src/kept.ts', '@@', '-c', '+d', '*** End Patch'].join('\n');
    assert.deepEqual(patchMoves(text), [['src/x.ts', 'src/y.ts']]);
    const root = join(dir, 'patched');
    mkdirSync(join(root, 'src'), { recursive: true });
    const input = { tool_name: 'apply_patch', tool_input: { command: text } };
    writeFileSync(join(root, 'src', 'x.ts'), 'a\n');
    assert.deepEqual(movedFiles(input, root), [], 'not applied: the source still there');
    renameSync(join(root, 'src', 'x.ts'), join(root, 'src', 'y.ts'));
    assert.deepEqual(movedFiles(input, root), [{ from: join(root, 'src', 'x.ts'), to: join(root, 'src', 'y.ts'), folder: false }]);
    assert.deepEqual(movedFiles({ tool_name: 'Read', tool_input: { file_path: join(root, 'src', 'y.ts') } }, root), [], 'a Read moves nothing');
  });
});
