import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { asksForSecret, givenWhenAsked, redactGivenValues } from '../../src/privacy/asked.js';

describe('a secret typed because the agent asked for it', () => {
  for (const [answer, prompt, value] of [
    ['I need the sudo password to install the package. What is it?', 'hunter22', 'hunter22'],
    ["What's the database password?", "it's sunshine42 please", 'sunshine42'],
    ['Could you share the API key for the staging account?', 'Zq8Wx7Cv6Bn5', 'Zq8Wx7Cv6Bn5'],
    ['Please enter your PIN:', '4821', '4821'],
    ['What is the password for the router?', '`marigold`', 'marigold'],
    ['パスワードを教えてください。', 'hunter22 です', 'hunter22'],
    ['暗証番号を入力してください', '4821', '4821'],
    ['デプロイにはトークンが必要です。', 'here: ghx-Kq7Lm2Zx9', 'ghx-Kq7Lm2Zx9'],
  ] as const) {
    it(`${answer} → ${prompt}`, () => assert.equal(givenWhenAsked(answer, prompt), value));
  }
  for (const [answer, prompt] of [
    // Not asked for: the answer ends elsewhere, or asks of the password, not for it.
    ['I fixed the login form. Anything else?', 'hunter22'],
    ["You'll need to reset the password in the admin panel.", 'reset2024'],
    ['Should I hash the password with bcrypt or argon2?', 'argon2id'],
    ["What's the password policy you want?", 'strict'],
    // Asked for, and the reply gives no value: a word of the talk, a question, where it is kept, a user's name.
    ["What's the sudo password?", 'no'],
    ["What's the sudo password?", 'skip'],
    ["What's the sudo password?", 'why do you need it?'],
    ["What's the sudo password?", 'use the one from the vault, please'],
    ['Which file holds the token?', '.env'],
    ['Where should I read the API key from? Please provide the token path.', '~/.config/gh/hosts.yml'],
    ["What's the username and password?", 'admin'],
    ["What's the sudo password?", '${SUDO_PASSWORD}'],
  ] as const) {
    it(`not: ${answer} → ${prompt}`, () => assert.equal(givenWhenAsked(answer, prompt), undefined));
  }
  it('the ask is read at the answer\'s end: a password asked for long before is not asked now', () => {
    const long = `What's the sudo password? ${'Then I ran the migrations and checked every table. '.repeat(12)}`;
    assert.equal(asksForSecret(long), false);
    assert.equal(asksForSecret(`${'I read the config. '.repeat(30)}What's the sudo password?`), true);
  });
  it('the value is redacted wherever the session repeats it, as a whole word only', () => {
    const turns = [
      { question: 'Install the heron package on the box', answer: "I need the sudo password. What is it?\n\nThanks: logged in with hunter22, and installed it. (hunter220 is another word)" },
      { question: 'Was hunter22 also the db password?', answer: 'No, the db has its own.' },
    ];
    redactGivenValues(turns, ['hunter22']);
    assert.equal(turns[0]?.answer, "I need the sudo password. What is it?\n\nThanks: logged in with [REDACTED:secret], and installed it. (hunter220 is another word)");
    assert.equal(turns[1]?.question, 'Was [REDACTED:secret] also the db password?');
    assert.equal(turns[1]?.answer, 'No, the db has its own.');
  });
});
