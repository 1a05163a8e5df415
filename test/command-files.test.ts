/**
 * The files a shell command names (how Codex reads them), on real files: only what is there
 * counts, seen from where the command ran.
 */
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { commandFiles } from '../src/cli/command-files.js';
import { touchedFiles } from '../src/cli/file-recall-hook.js';
import { tempDir } from './helpers.js';

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
});
