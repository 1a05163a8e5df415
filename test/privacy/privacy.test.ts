import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isExcluded } from '../../src/project/exclude.js';
import { cleanText, redactSecrets, removePrivate } from '../../src/privacy/redact.js';
import { compileFormats, formatProblem } from '../../src/privacy/formats.js';
import { heldReason } from '../../src/team/outbox.js';
import { GENERAL_NEGATIVES, SECRET_RULES } from '../../src/privacy/rules.js';

const redact = (s: string) => redactSecrets(s).text;

/** Each of `said` redacted whole (a redaction, something found, no piece of it left), each of `alike` untouched. */
function redactedWhole(said: readonly string[], alike: readonly string[]): void {
  const left = said.filter((t) => {
    const r = redactSecrets(t);
    return !r.text.includes('[REDACTED:') || r.found.length === 0 || r.found.some((f) => r.text.includes(f));
  });
  assert.deepEqual(left, []);
  assert.deepEqual(alike.filter((t) => redactSecrets(t).text !== t), []);
}

// Built at run time so no scanner mistakes this file for a leak.
const fake = {
  aws: `AKIA${'Q3ZC7RWB5M2HNJXT'}`,
  ghp: `ghp_${'a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8'}`,
};

describe('secret redaction: the rule table, every example', () => {
  for (const rule of SECRET_RULES) {
    for (const text of rule.positives) {
      it(`${rule.kind} redacts ${JSON.stringify(text.slice(0, 48))}`, () => {
        const r = redactSecrets(text);
        assert.ok(rule.kindOf ? /\[REDACTED:[a-z0-9]+-secret\]/.test(r.text) : r.text.includes(`[REDACTED:${rule.kind}]`), r.text);
        for (const secret of r.found) assert.ok(!r.text.includes(secret), `${secret} is gone`);
        assert.ok(r.found.length > 0);
      });
    }
  }
  const negatives = [...SECRET_RULES.flatMap((rule) => rule.negatives), ...GENERAL_NEGATIVES];
  for (const text of negatives) it(`leaves ${JSON.stringify(text.slice(0, 48))} intact`, () => assert.equal(redact(text), text));

  it('the corpus: at least 240 positives over 150 kinds, 160 negatives (figures printed)', () => {
    const positives = SECRET_RULES.flatMap((rule) => rule.positives.map((t) => ({ kind: rule.kind, t })));
    // Kinds as the redactions name them (one rule may name several: the provider in the match).
    const kinds = new Set(positives.flatMap((p) => [...redact(p.t).matchAll(/\[REDACTED:([a-z0-9-]+)\]/g)].map((m) => m[1] as string)));
    const kindOf = new Map(SECRET_RULES.map((rule) => [rule.kind, rule.kindOf]));
    const redacted = positives.filter((p) => (kindOf.get(p.kind) ? /\[REDACTED:[a-z0-9]+-secret\]/.test(redact(p.t)) : redact(p.t).includes(`[REDACTED:${p.kind}]`))).length;
    const intact = negatives.filter((t) => redact(t) === t).length;
    process.stdout.write(`# redaction corpus: ${redacted}/${positives.length} positives redacted over ${kinds.size} kinds; ${intact}/${negatives.length} negatives intact\n`);
    assert.ok(positives.length >= 240, `${positives.length} positives`);
    assert.ok(kinds.size >= 150, `${kinds.size} kinds`);
    assert.ok(negatives.length >= 160, `${negatives.length} negatives`);
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

  it('a password in a sentence that ends in ! is redacted whole, the ! with it; a full stop or a question mark stays', () => {
    assert.equal(redact('The staging password is Winter2024! and the login fails'), 'The staging password is [REDACTED:secret] and the login fails');
    assert.equal(redact('my api key is Kq7Lm2Zx9Vb4Nw8Rt3!'), 'my api key is [REDACTED:secret]');
    assert.equal(redact('The password is hunter22.'), 'The password is [REDACTED:secret].');
    assert.equal(redact('is the wifi password still Winter2024x?'), 'is the wifi password still [REDACTED:secret]?', 'a question names the value too');
    assert.equal(redact('the password is incorrect!'), 'the password is incorrect!');
  });

  it('counts what it replaced', () => {
    const r = redactSecrets(`${fake.aws} and ${fake.ghp} and ${fake.aws}`);
    assert.deepEqual(r.counts, { 'aws-access-key': 2, 'github-token': 1 });
  });
});

describe('secret formats of one\'s own ([privacy] secret_formats)', () => {
  const key = ['acme_live_', 'Q7fZk29Lm', 'Xp4Rt8Wn3Vb'].join('');
  it('redact a whole token of that format, first and wherever it stands; not a longer word, not a near miss', () => {
    const own = compileFormats(['acme_live_*', 'CORP-????-????']);
    assert.equal(redactSecrets(`deploy with ${key}, then token=${key}.`, own).text, 'deploy with [REDACTED:custom], then token=[REDACTED:custom].');
    assert.equal(redactSecrets('ticket CORP-AB12-CD34 and CORP-AB12-CD345', own).text, 'ticket [REDACTED:custom] and CORP-AB12-CD345');
    assert.equal(redactSecrets(`notacme_live_x and acme_live_ alone`, own).text, 'notacme_live_x and acme_live_ alone');
    assert.deepEqual(redactSecrets(`${key} ${key}`, own).counts, { custom: 2 });
    assert.equal(redactSecrets(`deploy with ${key}`).text, `deploy with ${key}`, 'without the format, no public rule takes it');
  });

  it('say why a format is refused', () => {
    assert.equal(formatProblem('acme_live_*'), undefined);
    assert.equal(formatProblem('CORP-????-????'), undefined);
    assert.match(formatProblem('*') ?? '', /spells out 0 character/);
    assert.match(formatProblem('a*b') ?? '', /spells out 2 character/);
    assert.match(formatProblem('acme live') ?? '', /holds a space/);
    assert.match(formatProblem('acme*x*') ?? '', /more than one \*/);
  });

  it('hold a memory back from a team when it holds such a token, though it was captured before the format was added', () => {
    const r = { question: 'How do we deploy the billing worker?', answer: `With the deploy key ${key}.` };
    assert.equal(heldReason(r, compileFormats(['acme_live_*'])), 'a secret detector fires on it (custom)');
    const plain = { question: 'Where is the billing worker?', answer: 'In acme_live_cluster, beside the queue.' };
    assert.equal(heldReason(plain), undefined);
    assert.equal(heldReason(plain, compileFormats(['acme_live_*'])), 'a secret detector fires on it (custom)', 'a token of the format, however plain');
  });

  it('take time in proportion to the text, whatever the line (one * at most, bounded)', () => {
    const own = compileFormats(['*.corp-key', 'acme_*', 'CORP-????-????']);
    const time = (text: string) => {
      let best = Infinity;
      for (let i = 0; i < 5; i++) {
        const t = performance.now();
        redactSecrets(text, own);
        best = Math.min(best, performance.now() - t);
      }
      return best;
    };
    for (const make of [(n: number) => 'a'.repeat(n), (n: number) => 'acme_'.repeat(n / 5), (n: number) => 'CORP-AB12-'.repeat(n / 10)]) {
      const small = time(make(16_384));
      const big = time(make(131_072));
      assert.ok(big / Math.max(small, 1) < 24, `16 KB ${small.toFixed(1)} ms, 128 KB ${big.toFixed(1)} ms`);
    }
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
  it('a name typed composed matches a folder a Mac gives decomposed, and the other way', () => {
    const typed = '顧客データ';
    const mac = typed.normalize('NFD');
    assert.notEqual(mac, typed);
    assert.ok(isExcluded([typed], 'x', `/Users/u/${mac}/src`), 'a folder along the cwd');
    assert.ok(isExcluded([`/Users/u/${typed}`], 'x', `/Users/u/${mac}/src`), 'a folder pattern');
    assert.ok(isExcluded([`**/${typed}*`], 'x', `/Users/u/${mac}`), 'a glob');
    assert.ok(isExcluded([mac], typed, undefined), 'a project name');
    assert.ok(!isExcluded([typed], 'x', '/Users/u/顧客/src'), 'and only that name');
  });
});

describe('every token format in every syntax people paste', () => {
  // Each self-identifying token of the table, written as people write it in shell, .env,
  // YAML, JSON, TOML/INI, Python, Go, Java, PHP, XML/NuGet, Makefile, a curl header and prose.
  const SYNTAXES: Array<[string, (t: string) => string]> = [
    ['shell', (t) => `export SERVICE_CREDENTIAL=${t}`],
    ['.env', (t) => `SERVICE_TOKEN="${t}"`],
    ['yaml', (t) => `service:\n  token: ${t}\n  region: eu-west-1`],
    ['json', (t) => `{"service": {"apiKey": "${t}", "retries": 3}}`],
    ['toml', (t) => `[service]\ntoken = "${t}"`],
    ['python', (t) => `client = Service(api_key="${t}", timeout=30)`],
    ['go', (t) => `serviceToken := "${t}"`],
    ['java', (t) => `System.setProperty("SERVICE_TOKEN", "${t}");`],
    ['php', (t) => `$config = ['service_token' => '${t}'];`],
    ['xml', (t) => `<add key="ServiceToken" value="${t}" />`],
    ['makefile', (t) => `SERVICE_TOKEN ?= ${t}`],
    ['curl', (t) => `curl -H "Authorization: Bearer ${t}" https://api.example.com/v1/items`],
    ['prose', (t) => `I rotated it, the new one is ${t} — it works now.`],
  ];
  const tokens = SECRET_RULES.flatMap((rule) => {
    const bare = rule.positives.find((p) => /^[A-Za-z0-9_.~+/:-]{16,}={0,2}$/.test(p) && !p.includes('://'));
    return bare ? [{ kind: rule.kind, token: bare }] : [];
  });

  it('redacts the whole token in each, leaving no piece of it (figures printed)', () => {
    let done = 0;
    const leaks: string[] = [];
    for (const { kind, token } of tokens) {
      for (const [syntax, write] of SYNTAXES) {
        const line = write(token);
        const out = redactSecrets(line).text;
        // A redaction that leaves half a secret in one piece is a leak: no 12-character run of it may remain.
        const pieces = Array.from({ length: Math.max(1, token.length - 11) }, (_, i) => token.slice(i, i + 12));
        if (out.includes('[REDACTED:') && !pieces.some((p) => out.includes(p))) done++;
        else leaks.push(`${kind} in ${syntax}: ${out.slice(0, 100)}`);
      }
    }
    const total = tokens.length * SYNTAXES.length;
    process.stdout.write(`# redaction corpus (syntaxes): ${done}/${total} positives over ${new Set(tokens.map((t) => t.kind)).size} kinds × ${SYNTAXES.length} syntaxes\n`);
    assert.ok(tokens.length >= 80, `${tokens.length} token formats`);
    assert.deepEqual(leaks, []);
  });

  it('a Kubernetes Secret: every data and stringData value, base64 or not; other manifests and placeholders untouched', () => {
    const b64 = Buffer.from('Pg9Kq2Mx7Zw4Vb8').toString('base64');
    const manifest = `apiVersion: v1\nkind: Secret\nmetadata:\n  name: db\ntype: Opaque\ndata:\n  username: ${Buffer.from('app').toString('base64')}\n  password: ${b64}\nstringData:\n  DATABASE_URL: postgres-host-only\n  placeholder: \${DB_PASSWORD}\n---\napiVersion: v1\nkind: ConfigMap\ndata:\n  LOG_LEVEL: debug\n`;
    const r = redactSecrets(manifest);
    assert.ok(!r.text.includes(b64), r.text);
    assert.match(r.text, /password: \[REDACTED:(?:kubernetes-secret|secret)\]/);
    assert.match(r.text, /username: \[REDACTED:kubernetes-secret\]/);
    assert.match(r.text, /placeholder: \$\{DB_PASSWORD\}/, 'a reference stays');
    assert.match(r.text, /LOG_LEVEL: debug/, 'a ConfigMap is not a Secret');
    assert.match(r.text, /name: db/);
  });

  it('cookies: every generated-looking value of a Cookie header, curl -b and the first pair of Set-Cookie; names, short values, attributes and references stay', () => {
    const sid = 'Kq7Lm2Zx9Vb4Nw8Rt3Yu6Io1Pa5Sd9Fg2';
    const cases: Array<[string, string]> = [
      [`Cookie: session=${sid}; csrftoken=abc`, 'Cookie: session=[REDACTED:cookie]; csrftoken=abc'],
      // A browser's "Copy as cURL".
      [`curl 'https://app.example.com/api/me' -H 'accept: */*' -H 'cookie: theme=dark; sid=${sid}; lang=en' --compressed`, "curl 'https://app.example.com/api/me' -H 'accept: */*' -H 'cookie: theme=dark; sid=[REDACTED:cookie]; lang=en' --compressed"],
      [`curl -b 'sessionid=${sid}' https://x.example.com`, "curl -b 'sessionid=[REDACTED:cookie]' https://x.example.com"],
      [`curl --cookie "a=${sid}; b=1" https://x.example.com`, 'curl --cookie "a=[REDACTED:cookie]; b=1" https://x.example.com'],
      [`Set-Cookie: connect.sid=s%3A${sid}.abcdEFGH; Path=/; Expires=Wed, 21 Oct 2026 07:28:00 GMT; HttpOnly`, 'Set-Cookie: connect.sid=[REDACTED:cookie]; Path=/; Expires=Wed, 21 Oct 2026 07:28:00 GMT; HttpOnly'],
    ];
    for (const [text, want] of cases) {
      const r = redactSecrets(text);
      assert.equal(r.text, want);
      assert.ok((r.counts.cookie ?? 0) >= 1 && r.found.every((f) => !r.text.includes(f)), JSON.stringify(r));
    }
    for (const text of ['Cookie: theme=dark; lang=en', 'curl -b cookies.txt https://x.example.com', 'the cookie: session=${SID}', 'git checkout -b feature-login-2024', 'Set-Cookie: id=a3fWa; Max-Age=2592000', 'document.cookie = "theme=dark"']) {
      assert.equal(redactSecrets(text).text, text);
    }
  });

  it('credentials as developers paste and say them (bench/RESULTS.md, stop 71): each redacted, and no piece of it left; their look-alikes untouched', () => {
    // Each line holds one credential; what is after its label, separator or flag must be gone.
    const said = [
      "the credentials are admin:hunter22",
      "login is admin / Winter2024",
      "user: admin pass: Winter2024",
      "username admin password Winter2024",
      "log in as admin with password Winter2024",
      "ssh root@10.0.0.5 (pw Winter2024)",
      "pw is sunshine",
      "my sudo pw is sunshine",
      "the secret is Zq8Wx7Cv6Bn5Mm4Ll3",
      "is the wifi password still Winter2024x?",
      "the wifi password is coffee-shop-42",
      "the password is correct-horse-battery-staple.",
      "パスワードは coffee-shop-42 です",
      "パスワードはsunshineでログインできます",
      "ID：admin、PW：sunshine",
      "changed the password from Winter2024 to Spring2025",
      "パスワードを Winter2024 から Spring2025 に変更した",
      "パスワード変更: Winter2024 → Spring2025",
      'aws configure set aws_secret_access_key wJalrXUtnFEMI/' + 'K7MDENG/bPxRfiCYzq8wKEY1ab',
      "mongosh -u admin -p Winter2024 --authenticationDatabase admin",
      "sqlcmd -S db -U sa -P Winter2024 -Q \"select 1\"",
      "ldapsearch -x -D cn=admin,dc=ex -w Winter2024 -b dc=ex",
      "mysqladmin -u root -pWinter2024 status",
      "db.internal:5432:app:deploy:Winter2024",
      "rabbitmqctl add_user deploy Winter2024",
      "echo 'deploy:Winter2024' | chpasswd",
      "net user admin Winter2024 /add",
      "gh secret set DB_PASS --body Winter2024",
      "echo Winter2024 | docker login -u me --password-stdin",
      "openssl enc -aes-256-cbc -k Winter2024 -in f",
      "rar a -pWinter2024 a.rar f",
      'tsk' + 'ey-auth-kQ7Lm2CNTRL1-Kq7Lm2Zx9Vb4Nw8Rt3Yu6Io1Pa5Sd9',
      'fig' + 'd_Kq7Lm2Zx9Vb4Nw8Rt3Yu6Io1Pa5Sd9Fg2Hj0',
      'pat' + '-na1-91fcccbc-3740-4d08-9d10-e31c947d8db1',
      "https://acct.blob.core.windows.net/c/f.txt?sv=2022-11-02&sp=r&sig=Kq7Lm2Zx9Vb4Nw8Rt3Yu6Io1Pa5Sd9Fg2Hj0Kq7%3D",
      "https://bucket.s3.amazonaws.com/k?X-Amz-Expires=3600&X-Amz-Signature=3f9a8c7d6e5b4a3928171615141312ab3f9a8c7d6e5b4a3928171615141312ab",
      "https://x.com/a?auth=Kq7Lm2Zx9Vb4Nw8Rt3Yu6Io",
      `    client-key-data: ${Buffer.from('-----BEGIN RSA ' + 'PRIVATE KEY-----\nMIIEowIBAAKCAQEA7Kq2Lm9Zx4Vb8Nw3Rt6Yu1Io5Pa3Sd9F\n-----END RSA ' + 'PRIVATE KEY-----\n').toString('base64')}`,
      "APP_KEY=base64:Kq7Lm2Zx9Vb4Nw8Rt3Yu6Io1Pa5Sd9Fg2Hj0Kq7Lm2=",
      "Cookie: session=Kq7Lm2Zx9Vb4Nw8Rt3Yu6Io1Pa5Sd9Fg2; csrftoken=abc",
      "curl 'https://app.example.com/api/me' -H 'cookie: theme=dark; sid=Kq7Lm2Zx9Vb4Nw8Rt3Yu6Io1Pa5Sd9Fg2' --compressed",
      "curl -b 'sessionid=Kq7Lm2Zx9Vb4Nw8Rt3Yu6Io1Pa5Sd9Fg2' https://x",
      "Set-Cookie: connect.sid=s%3AKq7Lm2Zx9Vb4Nw8Rt3Yu6Io1Pa5Sd9Fg2.abcdEFGH; Path=/; HttpOnly",
      'AZURE_DEVOPS_PAT=' + 'k7q2lm9zx4vb8nw3rt6yu1io5pa3sd9fg2hj0kq7lm2zx9vb4nw8r',
    ];
    const alike = [
      "the password is incorrect",
      "the token v2 endpoint",
      "refresh token rotation in auth2 module",
      "the login page2 layout",
      "credentials are loaded via AWS_PROFILE",
      "the secret sha256 digest",
      "password hash argon2id params",
      "token limit 128k",
      "token count 4096 exceeds",
      "password policy NIST800-63",
      "login: OAuth2",
      "login via SSO/SAML2",
      "the secret key2 field",
      "api key rotation Q3-2024",
      "password length 12",
      "secret 42",
      "token ETH2USD",
      "the token utf8Decoder",
      "my token budget 200k",
      "the token base64url",
      "password sha512crypt",
      "the token0 and token1 vars",
      "the secret of v8 performance",
      "the password reset flow for user42",
      "pass arg2 to the function",
      "tests pass: 42/42",
      "login at 10:30",
      "the login is root@db.internal:5432",
      "login: auth/callback2",
      "the credentials are user:pass",
      "moved the password from Vault to 1Password",
      "パスワード更新: 2024-01-01",
      "パスワードを bcrypt から argon2id に変えた",
      "Cookie: theme=dark; lang=en",
      "curl -b cookies.txt https://x",
      "git checkout -b feature-login-2024",
      "sqlcmd -S db -p -Q \"select 1\"",
      "ldapsearch -x -W -D cn=admin",
      "rar a -p- backup.rar src",
      "net user admin /delete",
      "12:30:45:678:9012",
      "games:*:20228:0:99999:7:::",
      "https://x.com/a?signature=true",
      "<h3 id=\"token-behavior\">Token Behavior</h3>",
      "NODE_PATH=/usr/lib/node_modules",
      "the password is one-time",
      "the password is up-to-date",
      "the password is read-only",
      "the password is base64-encoded",
      "the password is end-to-end encrypted",
      "the password is sha-256",
      "the password is my-password",
    ];
    redactedWhole(said, alike);
    assert.equal(said.length + alike.length, 96);
  });

  it('a short secret that can only be generated, a PIN set to a value, a passcode and a door\'s code, a license or recovery key, a login said with "log in with", a wallet\'s seed phrase or hex key, a Japanese label followed by 、 → or はこれ:, a recovery code, a passphrase before です, a card\'s number and security code, a TOTP seed: redacted whole; their look-alikes untouched', () => {
    // Each kept verbatim before: a non-password label needed 12 characters, a PIN only "is" or a colon.
    const said = [
      'the VPN shared secret is t7Yq!kP2zz',
      'the client secret is 9fK2mQ7xLp, rotate it monthly',
      'the webhook signing secret is 7Hq2xK9mZt',
      'I set the PIN to 4821',
      'changed my SIM PIN to 120934 yesterday',
      'the PIN was changed to 4821',
      'the passcode is 998877',
      'the door code is 4821',
      'the alarm code: 1357',
      'the license key is QX7R-K2MP-99TZ-L4WB',
      'the recovery code is 8H3K-9QWE-22LX',
      'log in with admin / P@ssw0rd123 and open the dashboard',
      'sign in as admin with P@ssw0rd123',
      'my metamask seed phrase: abandon ability able about above absent absorb abstract absurd abuse access accident',
      'the deployer\'s private key is 0x' + '4c0883a69102937d6231471b5dbb6204fe5129617082792ae468d01a3f362318',
      'ステージングのパスワード、Winter2024xにしといて',
      'パスワード→ Winter2024x',
      'APIキーはこれ: 9fK2mQ7xLp4Rt8Zq',
      'リカバリーコードは 8H3K-9QWE-22LX です',
      '秘密鍵のパスフレーズは blue ocean morning です',
      'my credit card number is 4539 1488 0343 6467',
      'カード番号は 4539-1488-0343-6467 です',
      'CVC: 4821',
      'TOTP seed: JBSWY3DPEHPK3PXP',
    ];
    const alike = [
      'set the PIN to 6 digits',
      'set pin 13 to 1000',
      'pin the version to 1234',
      'the error code is 4821',
      'the zip code is 94103',
      'the passcode is 6 digits long',
      'the secret is sha256sum',
      'the secret is AES256GCM',
      'the token is JwtV2Auth',
      'the signing key is RS256',
      'the license key is in the welcome email',
      'the recovery code is printed on the card',
      'login with SSO/SAML2',
      'sign in with google:oauth',
      'sign in as alice with Google',
      'the seed phrase is never stored anywhere and the wallet asks for it again after every restart of the app',
      'the private key\'s sha256 is 3f9a8c7d6e5b4a3928171615141312ab3f9a8c7d6e5b4a3928171615141312ab',
      'パスワード、トークン、APIキーを保存する',
      'パスワード → 1Password に移した',
      'パスワードは not set yet です',
      'use the test card 4242 4242 4242 4242 for 3DS',
      'card 1234 5678 9012 3456 fails the check',
      'the cvv is 3 digits',
    ];
    redactedWhole(said, alike);
    assert.equal(redactSecrets('the VPN shared secret is t7Yq!kP2zz').text, 'the VPN shared secret is [REDACTED:secret]');
    assert.equal(redactSecrets('changed my SIM PIN to 120934 yesterday').text, 'changed my SIM PIN to [REDACTED:secret] yesterday');
  });

  it('a passphrase of plain words after "is" or set to them, a social security number and a My Number, an answer to a security question, digit backup codes, Wi-Fiのパス and a label bound by 教えるね、, an IBAN and a bank account\'s number: redacted whole; sentences about them untouched', () => {
    // Each kept verbatim before this stop's rules.
    const said = [
      'my password is correct horse battery staple',
      'the passphrase for the backup disk is maple river cobalt lantern.',
      'my gpg passphrase is blue ocean morning tide, do not lose it',
      'the password was changed to river stone maple cloud',
      'my SSN is 524-71-3398',
      'social security number: 524 71 3398',
      'マイナンバーは 1234 5678 9012 です',
      'the answer to my security question is Fluffy',
      'my mother\'s maiden name is Smith.',
      '秘密の質問の答えは「ポチ」',
      'the 2FA backup codes are 12345678 87654321',
      'recovery codes: 4821-9930, 1174-2209 and 5530-1187',
      'Wi-Fiのパスは sunflower77 です',
      'Wi-Fiのパスワード教えるね、sunflower77',
      'my IBAN is DE44 5001 0517 5407 3249 31',
      'my bank account number is 12345678',
      '口座番号は1234567です',
    ];
    const alike = [
      'the password is hashed with argon2id before storage',
      'the password is never logged anywhere',
      'the password is sent over tls only',
      'the password is case sensitive everywhere in the app.',
      'the password is randomly generated every night',
      'the password is the same one as last time',
      'set the password to require two factor auth everywhere',
      'changed the password to something stronger yesterday',
      'the wifi password is purple monkey dishwasher',
      'the ssn column is 9 digits',
      'SSN: 000-12-3456 fails validation',
      'マイナンバーは12桁です',
      'the answer to the security question is stored hashed',
      '秘密の質問の答えは保存しない',
      'backup codes are 8 digits',
      'recovery codes: 10 of them',
      'ビルドのパスは src/app です',
      'パスワード教えるね、ちょっと待って',
      'the OTP was 482913',
      'IBAN: DE89 3704 0044 0532 0130 00 is the example in the docs',
      'the account number is 8 digits',
    ];
    redactedWhole(said, alike);
    assert.equal(redactSecrets('my password is correct horse battery staple').text, 'my password is [REDACTED:secret]');
    assert.equal(redactSecrets('my SSN is 524-71-3398').text, 'my SSN is [REDACTED:national-id]');
    assert.equal(redactSecrets('recovery codes: 4821-9930, 1174-2209 and 5530-1187').text, 'recovery codes: [REDACTED:secret]');
  });

  it('placeholders and references stay byte for byte', () => {
    for (const text of [
      'curl -u "$ES_USER:$ES_PASS" https://es.internal:9200',
      'token: ${{ secrets.NPM_TOKEN }}',
      'password = var.db_password',
      `aws_access_key_id = AKIA${'IOSFODNN7EXAMPLE'}`,
      `aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/${'bPxRfiCYEXAMPLEKEY'}`,
      `GITHUB_TOKEN=ghp_${'x'.repeat(36)}`,
      'SLACK_TOKEN=xoxb-xxx',
      `GITLAB_TOKEN=glpat-${'X'.repeat(20)}`,
      'access_token=ACCESS_TOKEN',
      'API_KEY=<your-api-key>',
      'password: "{{ .Values.db.password }}"',
      'set PASSWORD=%DB_PASSWORD%',
      'apiKey: process.env.STRIPE_KEY',
      'token = os.environ["SERVICE_TOKEN"]',
    ]) {
      assert.equal(redactSecrets(text).text, text);
    }
  });
});

describe('after an upgrade, history is re-checked', () => {
  it('scrub --dry-run counts, by kind, what the new rules would redact in memories already exported; writes nothing', async () => {
    const { makeWorld, rec, runCli, writeJsonl } = await import('../support/helpers.js');
    const { readFileSync } = await import('node:fs');
    const { join } = await import('node:path');
    const w = makeWorld();
    try {
      // Memories captured by an earlier version, whose rules let these through.
      const key = `AIza${'Sy'}${'Kq7Lm2Zx9Vb4Nw8Rt3Yu6Io1Pa5Sd9Fg2H'.slice(0, 33)}`;
      const file = join(w.exportDir, '2026-10_laptop.jsonl');
      writeJsonl(file, [
        rec({ id: 'old-1', question: 'Why does the maps widget fail in staging?', answer: `The key was wrong; the right one is ${key}.` }),
        rec({ id: 'old-2', question: 'Which Go setting holds the shop token?', answer: `shopToken := "shp${'at_'}${'0123456789abcdef'.repeat(2)}"` }),
        rec({ id: 'old-3', question: 'How do we page the staging list?', answer: 'With offset and limit, 20 per page.' }),
      ]);
      const before = readFileSync(file, 'utf8');
      const r = runCli(['-c', w.config, 'scrub', '--dry-run', '--json']);
      assert.equal(r.code, 0, r.stderr);
      const out = JSON.parse(r.stdout) as { scanned: number; changed: number; counts: Record<string, number>; dry_run: boolean };
      assert.equal(out.dry_run, true);
      assert.equal(out.scanned, 3);
      assert.equal(out.changed, 2);
      assert.deepEqual(out.counts, { 'google-api-key': 1, 'shopify-token': 1 });
      assert.equal(readFileSync(file, 'utf8'), before, 'nothing written');
    } finally {
      w.cleanup();
    }
  });

  it('finds a secret in every field that reaches git: files, repo, file_blobs, project', async () => {
    const { makeWorld, rec, runCli, writeJsonl } = await import('../support/helpers.js');
    const { join } = await import('node:path');
    const w = makeWorld();
    try {
      const tok = (i: number) => `ghp_${'Zq8Wx7Cv6Bn5Mm4Ll3Kk2Jj1Hh0Gg9Ff8Ee7'.slice(i, i + 36)}`.padEnd(40, 'x').slice(0, 40);
      writeJsonl(join(w.exportDir, '2026-10_laptop.jsonl'), [
        rec({ id: 'in-files', question: 'q1', answer: 'a1', files: [`/tmp/out/${tok(0)}/log.txt`] }),
        rec({ id: 'in-repo', question: 'q2', answer: 'a2', extra: { repo: `github.com/acme/${tok(1)}` } }),
        rec({ id: 'in-blobs', question: 'q3', answer: 'a3', extra: { file_blobs: [{ file: `cfg/${tok(2)}.json`, blob: 'e69de29bb2d1d6434b8b29ae775ad8c2e48c5391' }] } }),
        rec({ id: 'in-project', question: 'q4', answer: 'a4', project: `p-${tok(3)}` }),
        rec({ id: 'clean', question: 'q5', answer: 'a5', files: ['src/db.ts'] }),
      ]);
      const r = runCli(['-c', w.config, 'scrub', '--dry-run', '--json']);
      assert.equal(r.code, 0, r.stderr);
      const out = JSON.parse(r.stdout) as { scanned: number; changed: number; counts: Record<string, number> };
      assert.equal(out.scanned, 5);
      assert.equal(out.changed, 4, JSON.stringify(out));
      assert.equal(Object.values(out.counts).reduce((a, b) => a + b, 0), 4, JSON.stringify(out.counts));
    } finally {
      w.cleanup();
    }
  });
});
