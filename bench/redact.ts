/**
 * The cost of secret redaction, which runs on every stored field of every captured turn:
 * p50 and p99 over 10 KB texts (prose, code, logs, a few secrets), and the rule count.
 * `npm run bench:redact`; figures go to bench/RESULTS.md.
 */
import { redactSecrets } from '../src/privacy/redact.js';
import { SECRET_RULES } from '../src/privacy/rules.js';
import { ADVERSARIAL } from './adversarial.js';

const PIECES = [
  'We traced the sqlite lock timeout to two writers in src/db.ts; busy_timeout = 5000 and one transaction per batch fixed it.\n',
  'const client = new Client({ region: "eu-west-1", retries: 3 });\nawait client.send(new PutObjectCommand({ Bucket, Key, Body }));\n',
  '2026-11-20T10:00:00.000Z INFO request id 123e4567-e89b-12d3-a456-426614174000 took 132 ms (GET /api/items?page=2)\n',
  'commit 3f786850e387550fdab836ed7e6dc881de23001b: retry the webhook sender with exponential backoff and jitter\n',
  '認証エラーの原因はトークンの有効期限切れでした。更新処理を追加しています。\n',
  'diff --git a/src/money.ts b/src/money.ts\n-  return amount / 100;\n+  return amount / 10 ** exponent(currency);\n',
];
const SECRETS = ['export API_TOKEN=Zq8Wx7Cv6Bn5Mm4Ll3\n', 'postgres://app:pw123@db.internal/app\n', `AIza${'Sy'}${'aB3cD4eF5gH6iJ7kL8mN9oP0qR1sT2uVwX'.slice(0, 33)}\n`];

function text(seed: number): string {
  let out = '';
  let i = seed;
  while (out.length < 10_000) {
    out += PIECES[i % PIECES.length];
    if (i % 23 === 0) out += SECRETS[i % SECRETS.length];
    i++;
  }
  return out.slice(0, 10_000);
}

const texts = Array.from({ length: 50 }, (_, i) => text(i));
for (const t of texts) redactSecrets(t); // warm the regular expressions
const times: number[] = [];
for (let round = 0; round < 20; round++) {
  for (const t of texts) {
    const start = performance.now();
    redactSecrets(t);
    times.push(performance.now() - start);
  }
}
times.sort((a, b) => a - b);
const q = (p: number) => times[Math.min(times.length - 1, Math.floor(p * times.length))] as number;
process.stdout.write('| redaction of a 10 KB text | p50 ms | p99 ms | samples | rules |\n|---|---:|---:|---:|---:|\n');
process.stdout.write(`| prose, code, logs, Japanese, a few secrets | ${q(0.5).toFixed(2)} | ${q(0.99).toFixed(2)} | ${times.length} | ${SECRET_RULES.length} |\n`);

// Adversarial inputs per family of rules (bench/adversarial.ts): p99 of 20 runs at 8 KB and
// 64 KB, and the growth between them (8 is linear, 64 quadratic).
const p99 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(0.99 * xs.length))] as number;
process.stdout.write('\n| adversarial input (family) | 8 KB p99 ms | 64 KB p99 ms | growth (8× input) |\n|---|---:|---:|---:|\n');
for (const [family, make] of Object.entries(ADVERSARIAL)) {
  const run = (n: number) => {
    const text = make(n);
    redactSecrets(text);
    return Array.from({ length: 20 }, () => {
      const t = performance.now();
      redactSecrets(text);
      return performance.now() - t;
    });
  };
  const a = p99(run(8192));
  const b = p99(run(65_536));
  process.stdout.write(`| ${family} | ${a.toFixed(2)} | ${b.toFixed(2)} | ${(b / a).toFixed(1)} |\n`);
}
