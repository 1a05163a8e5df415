import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isExcluded } from '../src/privacy/exclude.js';
import { cleanText, redactSecrets, removePrivate } from '../src/privacy/redact.js';
import { GENERAL_NEGATIVES, SECRET_RULES } from '../src/privacy/rules.js';

const redact = (s: string) => redactSecrets(s).text;

// Built at run time so no scanner mistakes this file for a leak.
const fake = {
  aws: `AKIA${'IOSFODNN7EXAMPLE'}`,
  ghp: `ghp_${'a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8'}`,
};

describe('secret redaction: the rule table, every example', () => {
  for (const rule of SECRET_RULES) {
    for (const text of rule.positives) {
      it(`${rule.kind} redacts ${JSON.stringify(text.slice(0, 48))}`, () => {
        const r = redactSecrets(text);
        assert.ok(r.text.includes(`[REDACTED:${rule.kind}]`), r.text);
        for (const secret of r.found) assert.ok(!r.text.includes(secret), `${secret} is gone`);
        assert.ok(r.found.length > 0);
      });
    }
  }
  const negatives = [...SECRET_RULES.flatMap((rule) => rule.negatives), ...GENERAL_NEGATIVES];
  for (const text of negatives) it(`leaves ${JSON.stringify(text.slice(0, 48))} intact`, () => assert.equal(redact(text), text));

  it('the corpus: at least 60 positives over 25 kinds, 40 negatives (figures printed)', () => {
    const positives = SECRET_RULES.flatMap((rule) => rule.positives.map((t) => ({ kind: rule.kind, t })));
    const kinds = new Set(SECRET_RULES.map((rule) => rule.kind));
    const redacted = positives.filter((p) => redact(p.t).includes(`[REDACTED:${p.kind}]`)).length;
    const intact = negatives.filter((t) => redact(t) === t).length;
    process.stdout.write(`# redaction corpus: ${redacted}/${positives.length} positives redacted over ${kinds.size} kinds; ${intact}/${negatives.length} negatives intact\n`);
    assert.ok(positives.length >= 60, `${positives.length} positives`);
    assert.ok(kinds.size >= 25, `${kinds.size} kinds`);
    assert.ok(negatives.length >= 40, `${negatives.length} negatives`);
    assert.equal(redacted, positives.length);
    assert.equal(intact, negatives.length);
  });

  it('keeps what surrounds a secret: user and host of a URL, the header name, the variable name', () => {
    assert.equal(redact('postgres://admin:hunter22@db.local:5432/app'), 'postgres://admin:[REDACTED:url-password]@db.local:5432/app');
    assert.equal(redact('redis://:s3cretPass@cache:6379'), 'redis://:[REDACTED:url-password]@cache:6379');
    assert.equal(redact('Authorization: Bearer abcDEF123456ghiJKL'), 'Authorization: Bearer [REDACTED:auth-header]');
    assert.equal(redact('export DB_PASSWORD=s3cr3t-value'), 'export DB_PASSWORD=[REDACTED:secret]');
    assert.equal(redact('API_TOKEN="abcd1234efgh"'), 'API_TOKEN="[REDACTED:secret]"');
    assert.equal(redact('{"api_key": "abc123456", "name": "x"}'), '{"api_key": "[REDACTED:secret]", "name": "x"}');
  });

  it('counts what it replaced', () => {
    const r = redactSecrets(`${fake.aws} and ${fake.ghp} and ${fake.aws}`);
    assert.deepEqual(r.counts, { 'aws-access-key': 2, 'github-token': 1 });
  });
});

describe('<private> spans', () => {
  it('are removed, case-insensitively, across lines, also with attributes', () => {
    assert.equal(removePrivate('a <private>x\ny</private> b <PRIVATE>z</Private> c'), 'a  b  c');
    assert.equal(removePrivate('a <private reason="client data">x</private> b'), 'a  b');
    assert.equal(removePrivate('<privateer> is a word'), '<privateer> is a word');
  });
  it('an unclosed tag removes to the end', () => {
    assert.equal(removePrivate('keep <private>drop\nall of this'), 'keep ');
  });
  it('cleanText removes private spans even with redaction off', () => {
    assert.equal(cleanText(`x <private>y</private> ${fake.aws}`, false).text, `x  ${fake.aws}`);
    assert.equal(cleanText(`x <private>y</private> ${fake.aws}`, true).text, 'x  [REDACTED:aws-access-key]');
  });
});

describe('exclude_projects', () => {
  it('matches project names and cwd paths with globs', () => {
    assert.ok(isExcluded(['secret-*'], 'secret-api', '/w/secret-api'));
    assert.ok(!isExcluded(['secret-*'], 'public', '/w/public'));
    assert.ok(isExcluded(['/work/clients/*'], 'acme', '/work/clients/acme'));
    assert.ok(isExcluded(['/work/clients'], 'x', '/work/clients/acme/sub'), 'a folder covers what is below it');
    assert.ok(isExcluded(['/work/**/private'], 'p', '/work/a/b/private'));
    assert.ok(!isExcluded([], 'a', '/a'));
  });
  it('matches each folder name along the cwd, so a folder inside another repository is excluded too', () => {
    assert.ok(isExcluded(['secret-*'], 'mono', '/home/u/mono/secret-y'));
    assert.ok(isExcluded(['secret-*'], 'mono', '/home/u/mono/secret-y/src'));
    assert.ok(isExcluded(['**/secret-client*'], 'mono', '/home/u/mono/secret-client-a'));
    assert.ok(!isExcluded(['secret-*'], 'mono', '/home/u/mono/public'));
    assert.ok(!isExcluded(['secret-*'], 'mono', '/home/u/mono/my-secret-notes'), 'a name pattern matches whole folder names');
  });
});
