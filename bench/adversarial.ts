/** Inputs that make a backtracking rule superlinear, one per family of redaction rules (bench:redact, test/privacy/redact-linear.test.ts). */
export const ADVERSARIAL: Record<string, (n: number) => string> = {
  'secret names (API_KEY, db-password…): words joined by - . _': (n) => 'stripe-key-'.repeat(Math.ceil(n / 11)).slice(0, n),
  'secret names: a- runs': (n) => 'a-'.repeat(n / 2),
  'secret names: a_b. runs': (n) => 'a_b.'.repeat(n / 4),
  'provider names (github_, stripe_, slack_…)': (n) => 'github_stripe_slack_'.repeat(Math.ceil(n / 20)).slice(0, n),
  'keys bound to values (key=…)': (n) => 'key='.repeat(n / 4),
  'URL passwords (scheme://user:pass@)': (n) => ('x://u:' + 'p'.repeat(50) + ' ').repeat(Math.ceil(n / 57)).slice(0, n),
  'URL schemes (a+b.c-…)': (n) => 'a+b.c-'.repeat(Math.ceil(n / 6)).slice(0, n),
  'command-line passwords (mysql -p, curl -u)': (n) => 'mysql curl '.repeat(Math.ceil(n / 11)).slice(0, n),
  'private key blocks': (n) => '-----BEGIN PRIVATE KEY-----\n'.repeat(Math.ceil(n / 28)).slice(0, n),
  'tokens (long runs of letters and digits)': (n) => 'a'.repeat(n),
  'SVG path data': (n) => 'M10.5-3.2l4.1-2.2c1.1-0.6 2.3-1.0 3.5-1.1'.repeat(Math.ceil(n / 40)).slice(0, n),
  'labels in Japanese (パスワードは …, トークン: …)': (n) => 'パスワードは a1b2c3d4e5 トークン: '.repeat(Math.ceil(n / 27)).slice(0, n),
  'a label, then a long run (APIキー: aaaa…)': (n) => ('APIキー: ' + 'a1'.repeat(400) + ' ').repeat(Math.ceil(n / 808)).slice(0, n),
  'labels in English prose (the password for the x is …)': (n) => 'the password for the staging db is token to '.repeat(Math.ceil(n / 45)).slice(0, n),
  'base64 with dashes': (n) => 'QUJD-ZGVm_R2hp-amts'.repeat(Math.ceil(n / 19)).slice(0, n),
  'base64 words that decode to user:password (YWRtaW46…)': (n) => 'YWRtaW46aHVudGVyMjI= '.repeat(Math.ceil(n / 21)).slice(0, n),
  'netrc entries without a password (machine h login u …)': (n) => 'machine h login u account a '.repeat(Math.ceil(n / 28)).slice(0, n),
  'echo into a pipe without sudo -S (echo x | sudo …)': (n) => `echo x | sudo ${'-k '.repeat(Math.ceil(n / 3))}`.slice(0, n),
  'htpasswd flags and arguments (htpasswd -b a b …)': (n) => 'htpasswd -b a b '.repeat(Math.ceil(n / 16)).slice(0, n),
  'one long base64 run, then padding': (n) => `${'QUJD'.repeat(Math.floor((n - 2) / 4))}==`,
};

