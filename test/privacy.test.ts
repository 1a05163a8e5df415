import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isExcluded } from '../src/privacy/exclude.js';
import { cleanText, redactSecrets, removePrivate } from '../src/privacy/redact.js';

const redact = (s: string) => redactSecrets(s).text;

// Built at run time so no scanner mistakes this file for a leak.
const fake = {
  aws: `AKIA${'IOSFODNN7EXAMPLE'}`,
  ghp: `ghp_${'a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8'}`,
  ghPat: `github_pat_${'11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyzABCDEFGH'}`,
  anthropic: `sk-ant-api03-${'x'.repeat(40)}`,
  openai: `sk-proj-${'Ab1'.repeat(15)}`,
  slack: `xoxb-${'123456789012-1234567890123-abcdefghijklmnop'}`,
  stripe: `sk_live_${'4eC39HqLyjWDarjtT1zdp7dc'}`,
  google: `AIza${'SyA1bcdefghijklmnopqrstuvwx-yz01234'}`,
  jwt: `eyJhbGciOiJIUzI1NiJ9.${'eyJzdWIiOiIxMjM0NTY3ODkwIn0'}.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U`,
};

describe('secret redaction: each kind, positive', () => {
  const cases: Array<[string, string, string]> = [
    ['AWS access key', `aws key ${fake.aws} here`, 'aws key [REDACTED:aws-access-key] here'],
    ['GitHub classic token', `token ${fake.ghp}`, 'token [REDACTED:github-token]'],
    ['GitHub fine-grained token', `use ${fake.ghPat} now`, 'use [REDACTED:github-token] now'],
    ['Anthropic key', `ANTHROPIC ${fake.anthropic}`, 'ANTHROPIC [REDACTED:anthropic-key]'],
    ['OpenAI key', `key: ${fake.openai}`, 'key: [REDACTED:openai-key]'],
    ['Slack token', `slack ${fake.slack}`, 'slack [REDACTED:slack-token]'],
    ['Stripe key', `stripe ${fake.stripe}`, 'stripe [REDACTED:stripe-key]'],
    ['Google API key', `maps ${fake.google}`, 'maps [REDACTED:google-api-key]'],
    ['JWT', `Authorization: Bearer ${fake.jwt}`, 'Authorization: Bearer [REDACTED:jwt]'],
    ['password in a URL', 'postgres://admin:hunter22@db.local:5432/app', 'postgres://admin:[REDACTED:password]@db.local:5432/app'],
    ['KEY=value', 'export DB_PASSWORD=s3cr3t-value', 'export DB_PASSWORD=[REDACTED:secret]'],
    ['quoted assignment', 'API_TOKEN="abcd1234efgh"', 'API_TOKEN="[REDACTED:secret]"'],
    ['JSON field', '{"api_key": "abc123456", "name": "x"}', '{"api_key": "[REDACTED:secret]", "name": "x"}'],
    ['YAML-ish', 'client_secret: qwerty-98765', 'client_secret: [REDACTED:secret]'],
  ];
  for (const [name, input, expected] of cases) it(name, () => assert.equal(redact(input), expected));

  it('private key blocks, also when cut off', () => {
    const block = `-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA\nabc\n-----END RSA PRIVATE KEY-----`;
    assert.equal(redact(`key:\n${block}\nafter`), 'key:\n[REDACTED:private-key]\nafter');
    assert.equal(redact('-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXk'), '[REDACTED:private-key]');
  });

  it('counts what it replaced', () => {
    const r = redactSecrets(`${fake.aws} and ${fake.ghp} and ${fake.aws}`);
    assert.deepEqual(r.counts, { 'aws-access-key': 2, 'github-token': 1 });
  });
});

describe('secret redaction: negatives survive', () => {
  const keep = [
    'commit 3f786850e387550fdab836ed7e6dc881de23001b fixed it',
    'sha256: e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
    'request id 123e4567-e89b-12d3-a456-426614174000',
    'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==',
    'the token is valid until tomorrow',
    'password: string;',
    'const token = getToken();',
    'apiKey: process.env.API_KEY,',
    'TOKEN=$GITHUB_TOKEN',
    'https://example.com/path?q=1',
    'git@github.com:org/repo.git',
    'sk-short',
    'AKIA is a prefix',
    'eyJ is how JWTs start',
    'ssh://git@host:22/repo',
    '認証トークンの有効期限',
  ];
  for (const text of keep) it(JSON.stringify(text.slice(0, 40)), () => assert.equal(redact(text), text));
});

describe('<private> spans', () => {
  it('are removed, case-insensitively, across lines', () => {
    assert.equal(removePrivate('a <private>x\ny</private> b <PRIVATE>z</Private> c'), 'a  b  c');
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
});
