/**
 * Time expressions in questions, English and Japanese: each names the period the README
 * says, computed from the clock passed in (this machine's time zone), and its words leave the
 * question. The clock: Tuesday 1 December 2026, 11:00 local time.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { asksAboutOrder, readTime } from '../../src/search/when.js';

const NOW = new Date(2026, 11, 1, 11, 0, 0).getTime();
const d = (y: number, m: number, day: number, hour = 0) => new Date(y, m - 1, day, hour).getTime();

/** [question, since (y, m, d[, hour]), until exclusive (y, m, d[, hour]), the question left] */
const CASES: Array<[string, [number, number, number, number?], [number, number, number, number?], string]> = [
  ['what did we fix yesterday', [2026, 11, 30], [2026, 12, 1], 'what did we fix'],
  ['the build we broke today', [2026, 12, 1], [2026, 12, 2], 'the build we broke'],
  ['the migration the day before yesterday', [2026, 11, 29], [2026, 11, 30], 'the migration'],
  ['what did we decide last week about the cache', [2026, 11, 23], [2026, 11, 30], 'what did we decide about the cache'],
  ['deploys this week', [2026, 11, 30], [2026, 12, 7], 'deploys'],
  ['the outage last month', [2026, 11, 1], [2026, 12, 1], 'the outage'],
  ['budget this month', [2026, 12, 1], [2027, 1, 1], 'budget'],
  ['the rewrite last year', [2025, 1, 1], [2026, 1, 1], 'the rewrite'],
  ['what did we do in March', [2026, 3, 1], [2026, 4, 1], 'what did we do'],
  ['the March 2025 incident', [2025, 3, 1], [2025, 4, 1], 'the incident'],
  ['the auth bug in May', [2026, 5, 1], [2026, 6, 1], 'the auth bug'],
  ['the release of last March', [2025, 3, 1], [2025, 4, 1], 'the release'],
  ['the December plan', [2026, 12, 1], [2027, 1, 1], 'the plan'],
  ['on March 5 the deploy failed', [2026, 3, 5], [2026, 3, 6], 'the deploy failed'],
  ['notes from 5 March 2025', [2025, 3, 5], [2025, 3, 6], 'notes'],
  ['logs of 2026-03-05', [2026, 3, 5], [2026, 3, 6], 'logs'],
  ['in March, every test failed', [2026, 3, 1], [2026, 4, 1], ', every test failed'],
  ['the new version in March', [2026, 3, 1], [2026, 4, 1], 'the new version'],
  // A timestamp is its day, read whole: not November with "-27T10:00:00Z" left, nor ":01,123".
  ['2026-11-27T10:00:00Z ERROR db timeout, why?', [2026, 11, 27], [2026, 11, 28], 'ERROR db timeout, why?'],
  ['2026-11-27T10:00:00.123+09:00 worker crashed', [2026, 11, 27], [2026, 11, 28], 'worker crashed'],
  ['[2026-11-27 10:00:01,123] ERROR db timeout', [2026, 11, 27], [2026, 11, 28], '[ ] ERROR db timeout'],
  ['the log says 2026/11/27 10:00:01 connection refused', [2026, 11, 27], [2026, 11, 28], 'the log says connection refused'],
  ['Nov 27 10:00:01 host sshd: Failed password', [2026, 11, 27], [2026, 11, 28], 'host sshd: Failed password'],
  ['11/27/2026 10:00:01 PM the job stopped', [2026, 11, 27], [2026, 11, 28], 'the job stopped'],
  ['on 2026-11-27 at 10:00 UTC we deployed', [2026, 11, 27], [2026, 11, 28], 'we deployed'],
  ['two weeks ago we chose Postgres', [2026, 11, 14], [2026, 11, 21], 'we chose Postgres'],
  ['a week ago', [2026, 11, 21], [2026, 11, 28], ''],
  ['what did I buy in the last month', [2026, 11, 2], [2026, 12, 2], 'what did I buy'],
  ['the tests over the last week', [2026, 11, 25], [2026, 12, 2], 'the tests'],
  ['what we shipped in the last year', [2025, 12, 2], [2026, 12, 2], 'what we shipped'],
  ['flaky runs in the last few days', [2026, 11, 29], [2026, 12, 2], 'flaky runs'],
  ['the past few months of deploys', [2026, 9, 2], [2026, 12, 2], 'of deploys'],
  ["the last month's invoices", [2026, 11, 1], [2026, 12, 1], 'invoices'],
  ["yesterday's flaky test", [2026, 11, 30], [2026, 12, 1], 'flaky test'],
  ['last week’s decision on retries', [2026, 11, 23], [2026, 11, 30], 'decision on retries'],
  ['the freeze in the last week of March', [2026, 3, 25], [2026, 4, 1], 'the freeze'],
  ['what we shipped the first week of November', [2026, 11, 1], [2026, 11, 8], 'what we shipped'],
  ['11月の第2週の障害', [2026, 11, 8], [2026, 11, 15], 'の障害'],
  ['先月の最終週に決めたこと', [2026, 11, 24], [2026, 12, 1], 'に決めたこと'],
  ['the code freeze in the last week of 2025', [2025, 12, 25], [2026, 1, 1], 'the code freeze'],
  ['the first week of last year', [2025, 1, 1], [2025, 1, 8], ''],
  ['the first week of the year', [2026, 1, 1], [2026, 1, 8], ''],
  ['what broke in the last week of the year', [2025, 12, 25], [2026, 1, 1], 'what broke'],
  ['去年の最終週に直したバグ', [2025, 12, 25], [2026, 1, 1], 'に直したバグ'],
  ['2026年の第1週の障害', [2026, 1, 1], [2026, 1, 8], 'の障害'],
  ['3 days ago the tests were flaky', [2026, 11, 28], [2026, 11, 29], 'the tests were flaky'],
  ['a month ago', [2026, 10, 17], [2026, 11, 17], ''],
  ['the outage a year ago', [2025, 6, 1], [2026, 6, 2], 'the outage'],
  ['1年前の設計', [2025, 6, 1], [2026, 6, 2], 'の設計'],
  ['in the past 3 days', [2026, 11, 29], [2026, 12, 2], ''],
  ['the refactor in 2025', [2025, 1, 1], [2026, 1, 1], 'the refactor'],
  ['what did we change last Friday', [2026, 11, 27], [2026, 11, 28], 'what did we change'],
  ['the tickets from July to October', [2026, 7, 1], [2026, 11, 1], 'the tickets'],
  ['flights in March and April', [2026, 3, 1], [2026, 5, 1], 'flights'],
  ['the freeze from November to February', [2025, 11, 1], [2026, 3, 1], 'the freeze'],
  ['昨日のデプロイ', [2026, 11, 30], [2026, 12, 1], 'のデプロイ'],
  ['今日やったこと', [2026, 12, 1], [2026, 12, 2], 'やったこと'],
  ['一昨日の障害', [2026, 11, 29], [2026, 11, 30], 'の障害'],
  ['先週決めたキャッシュの方針', [2026, 11, 23], [2026, 11, 30], '決めたキャッシュの方針'],
  ['今週の作業', [2026, 11, 30], [2026, 12, 7], 'の作業'],
  ['先月の障害対応', [2026, 11, 1], [2026, 12, 1], 'の障害対応'],
  ['去年の設計', [2025, 1, 1], [2026, 1, 1], 'の設計'],
  ['3月に話した認証', [2026, 3, 1], [2026, 4, 1], 'に話した認証'],
  ['2026年3月のリリース', [2026, 3, 1], [2026, 4, 1], 'のリリース'],
  ['2025年の移行', [2025, 1, 1], [2026, 1, 1], 'の移行'],
  ['3月5日のデプロイ', [2026, 3, 5], [2026, 3, 6], 'のデプロイ'],
  ['２週間前に直したバグ', [2026, 11, 14], [2026, 11, 21], 'に直したバグ'],
  ['3日前のテスト', [2026, 11, 28], [2026, 11, 29], 'のテスト'],
  ['2か月前の議論', [2026, 9, 16], [2026, 10, 17], 'の議論'],
  ['過去7日間の変更', [2026, 11, 25], [2026, 12, 2], 'の変更'],
  ['この1か月間の障害', [2026, 11, 2], [2026, 12, 2], 'の障害'],
  ['この2週間で直したバグ', [2026, 11, 18], [2026, 12, 2], 'で直したバグ'],
  ['ここ数か月の議論', [2026, 9, 2], [2026, 12, 2], 'の議論'],
  ['直近1年のリリース', [2025, 12, 2], [2026, 12, 2], 'のリリース'],
  ['the releases of the past two years', [2024, 12, 2], [2026, 12, 2], 'the releases of'],
  ['金曜日のリリース', [2026, 11, 27], [2026, 11, 28], 'のリリース'],
  ['先日の打ち合わせで決めたこと', [2026, 11, 17], [2026, 12, 1], 'の打ち合わせで決めたこと'],
  ['what we discussed the other day', [2026, 11, 17], [2026, 12, 1], 'what we discussed'],
  ['the other week we fixed the login bug', [2026, 11, 14], [2026, 11, 28], 'we fixed the login bug'],
  ['what did we decide Monday morning', [2026, 11, 30], [2026, 12, 1], 'what did we decide'],
  ['the outage Friday night', [2026, 11, 27], [2026, 11, 28], 'the outage'],
  ['what did we fix last weekend', [2026, 11, 28], [2026, 12, 2], 'what did we fix weekend'],
  ['the deploy over the weekend', [2026, 11, 28], [2026, 12, 2], 'the deploy weekend'],
  ['週末に直したバグ', [2026, 11, 28], [2026, 12, 2], '週末 直したバグ'],
  ['週末はデプロイした', [2026, 11, 28], [2026, 12, 2], '週末 デプロイした'],
  ['the outage last night', [2026, 11, 30], [2026, 12, 1], 'the outage'],
  ['what I asked earlier today', [2026, 12, 1], [2026, 12, 2], 'what I asked'],
  ['half a year ago we moved to Postgres', [2026, 5, 17], [2026, 6, 17], 'we moved to Postgres'],
  ['notes since last week', [2026, 11, 23], [2026, 12, 2], 'notes'],
  ['what changed since Monday', [2026, 11, 30], [2026, 12, 2], 'what changed'],
  ['the parser since March', [2026, 3, 1], [2026, 12, 2], 'the parser'],
  ['the migration in March of last year', [2025, 3, 1], [2025, 4, 1], 'the migration'],
  ['March 5 last year', [2025, 3, 5], [2025, 3, 6], ''],
  ['先週末にやったこと', [2026, 11, 28], [2026, 12, 2], '週末にやったこと'],
  ['先週の週末のデプロイ', [2026, 11, 28], [2026, 12, 2], '週末のデプロイ'],
  ['昨夜のデプロイ', [2026, 11, 30], [2026, 12, 1], 'のデプロイ'],
  ['今朝の会議', [2026, 12, 1], [2026, 12, 2], 'の会議'],
  ['数日前のテスト', [2026, 11, 26], [2026, 11, 30], 'のテスト'],
  ['the flaky test a few days ago', [2026, 11, 26], [2026, 11, 30], 'the flaky test'],
  ['数週間前の議論', [2026, 10, 27], [2026, 11, 18], 'の議論'],
  ['a few months ago we moved the queue', [2026, 7, 1], [2026, 10, 2], 'we moved the queue'],
  ['2週間ほど前に直したバグ', [2026, 11, 14], [2026, 11, 21], 'に直したバグ'],
  ['半年前の設計', [2026, 5, 17], [2026, 6, 17], 'の設計'],
  ['去年の3月のリリース', [2025, 3, 1], [2025, 4, 1], 'のリリース'],
  ['3月末の障害', [2026, 3, 21], [2026, 4, 1], 'の障害'],
  ['6月末ごろから続く遅延', [2026, 6, 21], [2026, 7, 1], 'から続く遅延'],
  ['先月末の障害', [2026, 11, 21], [2026, 12, 1], 'の障害'],
  ['3月以降の変更', [2026, 3, 1], [2026, 12, 2], 'の変更'],
  ['3月から今までの変更', [2026, 3, 1], [2026, 12, 2], 'の変更'],
  ['the parser from March until now', [2026, 3, 1], [2026, 12, 2], 'the parser'],
  ['what we tried in March or April', [2026, 3, 1], [2026, 5, 1], 'what we tried'],
  ['3月か4月に入れたキャッシュ', [2026, 3, 1], [2026, 5, 1], 'に入れたキャッシュ'],
  ['先週か先々週のリリース', [2026, 11, 16], [2026, 11, 30], 'のリリース'],
  ['what have we shipped so far this month', [2026, 12, 1], [2027, 1, 1], 'what have we shipped'],
  ['the bug we fixed sometime in March', [2026, 3, 1], [2026, 4, 1], 'the bug we fixed'],
  ['先月の20日に決めた設定', [2026, 11, 20], [2026, 11, 21], 'に決めた設定'],
  ['今月1日のデプロイ', [2026, 12, 1], [2026, 12, 2], 'のデプロイ'],
  ['先々月の3日の障害', [2026, 10, 3], [2026, 10, 4], 'の障害'],
  ['先月の1日あたりの件数', [2026, 11, 1], [2026, 12, 1], 'の1日あたりの件数'],
  ['ここ2、3日で直したバグ', [2026, 11, 29], [2026, 12, 2], 'で直したバグ'],
  ['過去2〜3週間のデプロイ', [2026, 11, 11], [2026, 12, 2], 'のデプロイ'],
  ['3月あたりに入れた設定', [2026, 3, 1], [2026, 4, 1], 'に入れた設定'],
  ['3月中に決めた方針', [2026, 3, 1], [2026, 4, 1], 'に決めた方針'],
  ['11月20日前後の変更', [2026, 11, 20], [2026, 11, 21], 'の変更'],
  ['what we merged around November 20', [2026, 11, 20], [2026, 11, 21], 'what we merged'],
  ['the deploy the week after Thanksgiving', [2026, 11, 27], [2026, 12, 4], 'the deploy'],
  ['what broke the day after Thanksgiving', [2026, 11, 27], [2026, 11, 28], 'what broke'],
  ['the freeze the week before Christmas', [2025, 12, 17], [2025, 12, 24], 'the freeze'],
  ['the rollback the day before March 3', [2026, 3, 2], [2026, 3, 3], 'the rollback'],
  ['the hiring plan this past summer', [2026, 6, 1], [2026, 9, 1], 'the hiring plan'],
  ['先週明けのデプロイ', [2026, 11, 23], [2026, 11, 25], 'のデプロイ'],
  ['11月の頭に入れた変更', [2026, 11, 1], [2026, 11, 11], 'に入れた変更'],
  ['昨日の昼過ぎに落ちたジョブ', [2026, 11, 30], [2026, 12, 1], 'に落ちたジョブ'],
  ['一昨日の夜遅くのデプロイ', [2026, 11, 29], [2026, 11, 30], 'のデプロイ'],
  ['2週間ちょっと前に決めた方針', [2026, 11, 14], [2026, 11, 21], 'に決めた方針'],
  ['3〜5月にやった移行', [2026, 3, 1], [2026, 6, 1], 'にやった移行'],
  ['去年の3〜5月の障害', [2025, 3, 1], [2025, 6, 1], 'の障害'],
  ['11月27日(金)に入れた変更', [2026, 11, 27], [2026, 11, 28], 'に入れた変更'],
  ['先週金曜(11/27)のリリース', [2026, 11, 27], [2026, 11, 28], 'のリリース'],
  ['the Nov 27 (Fri) release', [2026, 11, 27], [2026, 11, 28], 'the release'],
  ['the outage on 11/27/2026', [2026, 11, 27], [2026, 11, 28], 'the outage'],
  ['what did we plan last week for next Friday', [2026, 11, 23], [2026, 11, 30], 'what did we plan for next Friday'],
  ['先週決めた来月の20日のリリース', [2026, 11, 23], [2026, 11, 30], '決めた来月の20日のリリース'],
  ['the outage on 27/11/2026', [2026, 11, 27], [2026, 11, 28], 'the outage'],
  ['2026.11.27のリリース', [2026, 11, 27], [2026, 11, 28], 'のリリース'],
  ['the 27.11.2026 incident', [2026, 11, 27], [2026, 11, 28], 'the incident'],
  ['what shipped Friday, November 27', [2026, 11, 27], [2026, 11, 28], 'what shipped'],
  ['the Fri Nov 27 deploy', [2026, 11, 27], [2026, 11, 28], 'the deploy'],
  ['what we decided on Friday, November 20', [2026, 11, 20], [2026, 11, 21], 'what we decided'],
  ['the retro on Friday the 20th', [2026, 11, 20], [2026, 11, 21], 'the retro'],
  ['on Friday 3 tests failed', [2026, 11, 27], [2026, 11, 28], '3 tests failed'],
  ['the outage on 27 Nov', [2026, 11, 27], [2026, 11, 28], 'the outage'],
  ['27日(金)に入れた修正', [2026, 11, 27], [2026, 11, 28], 'に入れた修正'],
  ['what we changed from the 10th to the 15th', [2026, 11, 10], [2026, 11, 16], 'what we changed'],
  ['the vacation from the 20th to the 27th of April', [2026, 4, 20], [2026, 4, 28], 'the vacation'],
  ['I washed the car on Monday, February 27th', [2026, 2, 27], [2026, 2, 28], 'I washed the car on Monday,'],
  ['10日から15日まで出張', [2026, 11, 10], [2026, 11, 16], '出張'],
  ['10〜15日に入れた修正', [2026, 11, 10], [2026, 11, 16], 'に入れた修正'],
  ['先週の金曜日(27日)の障害', [2026, 11, 27], [2026, 11, 28], 'の障害'],
  ['the deploy on Monday, November 27', [2026, 11, 27], [2026, 11, 28], 'the deploy on Monday,'],
  ['令和8年11月の障害', [2026, 11, 1], [2026, 12, 1], 'の障害'],
  ['昭和64年1月7日の記事', [1989, 1, 7], [1989, 1, 8], 'の記事'],
  ['大正12年9月1日の地震', [1923, 9, 1], [1923, 9, 2], 'の地震'],
  // An era not converted: its month is not this year's; the date in brackets is read.
  ['慶応3年12月9日（1868年1月3日）の王政復古', [1868, 1, 3], [1868, 1, 4], '慶応3年12月9日( )の王政復古'],
  // A day still to come this year is last year's, as in English ("December 9") and with a slash (12/9に).
  ['12月9日に決めたこと', [2025, 12, 9], [2025, 12, 10], 'に決めたこと'],
  ['12月1日の朝会', [2026, 12, 1], [2026, 12, 2], 'の朝会'],
  ['令和7年度の予算', [2025, 4, 1], [2026, 4, 1], 'の予算'],
  ['平成31年4月の移行', [2019, 4, 1], [2019, 5, 1], 'の移行'],
  ['2025年3-5月に入れた変更', [2025, 3, 1], [2025, 6, 1], 'に入れた変更'],
  ['3月から5月にかけての障害', [2026, 3, 1], [2026, 6, 1], 'の障害'],
  ['3月の頭痛', [2026, 3, 1], [2026, 4, 1], 'の頭痛'],
  ['先月比較したライブラリ', [2026, 11, 1], [2026, 12, 1], '比較したライブラリ'],
  ['the flaky test earlier in the week', [2026, 11, 30], [2026, 12, 7], 'the flaky test'],
  ['what we tried in the last week or two', [2026, 11, 18], [2026, 12, 2], 'what we tried'],
  ['toward the end of October we froze the schema', [2026, 10, 21], [2026, 11, 1], 'we froze the schema'],
  ['the deploy late yesterday', [2026, 11, 30], [2026, 12, 1], 'the deploy'],
  ['what broke last evening', [2026, 11, 30], [2026, 12, 1], 'what broke'],
  ["what did we decide at Friday's retro", [2026, 11, 27], [2026, 11, 28], 'what did we decide retro'],
  ['the PR from two Fridays ago', [2026, 11, 20], [2026, 11, 21], 'the PR from'],
  ['a couple of Mondays ago we paired', [2026, 11, 23], [2026, 11, 24], 'we paired'],
  ['what failed within the past day', [2026, 11, 30, 11], [2026, 12, 1, 11], 'what failed'],
  ['flaky tests these past few days', [2026, 11, 29], [2026, 12, 2], 'flaky tests'],
  ["the airline I flew with on Valentine's Day", [2026, 2, 14], [2026, 2, 15], 'the airline I flew with'],
  ['the outage on Christmas Eve', [2025, 12, 24], [2025, 12, 25], 'the outage'],
  ['what we shipped over Christmas', [2025, 12, 24], [2025, 12, 27], 'what we shipped'],
  ["the deploy on New Year's Day", [2026, 1, 1], [2026, 1, 2], 'the deploy'],
  ['the parser we rewrote over Thanksgiving', [2026, 11, 26], [2026, 11, 27], 'the parser we rewrote'],
  ['the Halloween 2024 release', [2024, 10, 31], [2024, 11, 1], 'release'],
  ["last year's Christmas party", [2025, 12, 24], [2025, 12, 27], 'party'],
  ['クリスマスイブにデプロイした', [2025, 12, 24], [2025, 12, 25], 'にデプロイした'],
  ['ハロウィンの夜の障害', [2026, 10, 31], [2026, 11, 1], 'の夜の障害'],
  ['去年のクリスマスに決めた', [2025, 12, 24], [2025, 12, 27], 'に決めた'],
  ['バレンタインデーに買ったプレゼント', [2026, 2, 14], [2026, 2, 15], 'に買ったプレゼント'],
  ['年末年始の障害', [2025, 12, 29], [2026, 1, 4], 'の障害'],
  ['2025年の年末のリリース', [2025, 12, 16], [2026, 1, 1], 'のリリース'],
  ['年明けのリリース', [2026, 1, 1], [2026, 1, 16], 'のリリース'],
  ['お正月に読んだ本', [2026, 1, 1], [2026, 1, 4], 'に読んだ本'],
  ['GW中にやったリファクタ', [2026, 4, 29], [2026, 5, 7], 'にやったリファクタ'],
  ['GW明けのリリース', [2026, 5, 7], [2026, 5, 14], 'のリリース'],
  ['お盆休みの当番', [2026, 8, 13], [2026, 8, 17], 'の当番'],
  ['昨年末の障害', [2025, 1, 1], [2026, 1, 1], 'の障害'],
  ['what we decided earlier this week', [2026, 11, 30], [2026, 12, 7], 'what we decided'],
  ['the migration late last year', [2025, 1, 1], [2026, 1, 1], 'the migration'],
  ['the outage the week before last', [2026, 11, 16], [2026, 11, 23], 'the outage'],
  ['what broke around this time last year', [2025, 11, 16], [2025, 12, 17], 'what broke'],
  ['去年の今頃の障害', [2025, 11, 16], [2025, 12, 17], 'の障害'],
  ['the same time last year we moved to Postgres', [2025, 11, 16], [2025, 12, 17], 'we moved to Postgres'],
  ['last year around this time, the outage', [2025, 11, 16], [2025, 12, 17], ', the outage'],
  ['this time a year ago', [2025, 11, 16], [2025, 12, 17], ''],
  ['去年の同じ頃のリリース', [2025, 11, 16], [2025, 12, 17], 'のリリース'],
  ['what we changed between March 3 and March 10', [2026, 3, 3], [2026, 3, 11], 'what we changed'],
  ['the deploys from March 3 to March 10', [2026, 3, 3], [2026, 3, 11], 'the deploys'],
  ['the March 3-10 sprint', [2026, 3, 3], [2026, 3, 11], 'the sprint'],
  ['notes from last week to today', [2026, 11, 23], [2026, 12, 2], 'notes'],
  ['3月3日から3月10日までの障害', [2026, 3, 3], [2026, 3, 11], 'の障害'],
  ['3月3日〜10日のリリース', [2026, 3, 3], [2026, 3, 11], 'のリリース'],
  ['先週から今週までの変更', [2026, 11, 23], [2026, 12, 7], 'の変更'],
  ['2023年末のリリース', [2023, 1, 1], [2024, 1, 1], 'のリリース'],
  ['先週の金曜のリリース', [2026, 11, 27], [2026, 11, 28], 'のリリース'],
  ['今週の月曜に決めた', [2026, 11, 30], [2026, 12, 1], 'に決めた'],
  ['先々週の水曜日の障害', [2026, 11, 18], [2026, 11, 19], 'の障害'],
  ['the outage on Friday of last week', [2026, 11, 27], [2026, 11, 28], 'the outage'],
  ['what we merged last week on Tuesday', [2026, 11, 24], [2026, 11, 25], 'what we merged'],
  ['昨日の午後に直したバグ', [2026, 11, 30], [2026, 12, 1], 'に直したバグ'],
  ['金曜日の夜のデプロイ', [2026, 11, 27], [2026, 11, 28], 'のデプロイ'],
  ['what we decided yesterday afternoon', [2026, 11, 30], [2026, 12, 1], 'what we decided'],
  ['the deploy on Monday morning', [2026, 11, 30], [2026, 12, 1], 'the deploy'],
  ['the bike expenses since the start of the year', [2026, 1, 1], [2026, 12, 2], 'the bike expenses'],
  ['the freeze in early March', [2026, 3, 1], [2026, 3, 11], 'the freeze'],
  ['the mid-March outage', [2026, 3, 11], [2026, 3, 21], 'the outage'],
  ['the migration at the end of last month', [2026, 11, 21], [2026, 12, 1], 'the migration'],
  ['what broke late last month', [2026, 11, 21], [2026, 12, 1], 'what broke'],
  ['3月上旬のリリース', [2026, 3, 1], [2026, 3, 11], 'のリリース'],
  ['去年の3月中旬の障害', [2025, 3, 11], [2025, 3, 21], 'の障害'],
  ['what we shipped last summer', [2026, 6, 1], [2026, 9, 1], 'what we shipped'],
  ['the rewrite over the summer', [2026, 6, 1], [2026, 9, 1], 'the rewrite'],
  ['the outage last winter', [2025, 12, 1], [2026, 3, 1], 'the outage'],
  ['the plan for the summer of 2025', [2025, 6, 1], [2025, 9, 1], 'the plan for'],
  ['去年の夏のリリース', [2025, 6, 1], [2025, 9, 1], 'のリリース'],
  ['昨秋の移行', [2025, 9, 1], [2025, 12, 1], 'の移行'],
  ['この夏に直したバグ', [2026, 6, 1], [2026, 9, 1], 'に直したバグ'],
  ['what we decided on the Wednesday two months ago', [2026, 9, 30], [2026, 10, 1], 'what we decided'],
  ['2か月前の水曜日に決めた', [2026, 9, 30], [2026, 10, 1], 'に決めた'],
  ['the Friday three weeks ago', [2026, 11, 13], [2026, 11, 14], ''],
  ['the flaky test two or three days ago', [2026, 11, 28], [2026, 11, 30], 'the flaky test'],
  ['2、3日前のエラー', [2026, 11, 28], [2026, 11, 30], 'のエラー'],
  ['what we changed two weeks back', [2026, 11, 14], [2026, 11, 21], 'what we changed'],
  ['the refactor a fortnight ago', [2026, 11, 14], [2026, 11, 21], 'the refactor'],
  ['deploys in the last couple of days', [2026, 11, 30], [2026, 12, 2], 'deploys'],
  ['the outage this past week', [2026, 11, 25], [2026, 12, 2], 'the outage'],
  ['先週あたりの障害', [2026, 11, 23], [2026, 11, 30], 'の障害'],
  ['今年度の目標', [2026, 4, 1], [2027, 4, 1], 'の目標'],
  ['2025年度の予算', [2025, 4, 1], [2026, 4, 1], 'の予算'],
  ['what did we decide on the 3rd', [2026, 11, 3], [2026, 11, 4], 'what did we decide'],
  ['the outage on the 31st', [2026, 10, 31], [2026, 11, 1], 'the outage'],
  ['the 28th of last month', [2026, 11, 28], [2026, 11, 29], ''],
  ['3日に決めた', [2026, 11, 3], [2026, 11, 4], 'に決めた'],
  ['15日の夜のデプロイ', [2026, 11, 15], [2026, 11, 16], 'のデプロイ'],
  ['the deploy this Monday', [2026, 11, 30], [2026, 12, 1], 'the deploy'],
  ['昨日の夜中のアラート', [2026, 11, 30], [2026, 12, 1], 'のアラート'],
  ['what did we ship last quarter', [2026, 7, 1], [2026, 10, 1], 'what did we ship'],
  ['the incidents this quarter', [2026, 10, 1], [2027, 1, 1], 'the incidents'],
  ['the migration the quarter before last', [2026, 4, 1], [2026, 7, 1], 'the migration'],
  ['the outages over the past quarter', [2026, 9, 2], [2026, 12, 2], 'the outages'],
  ['what did we decide in Q2', [2026, 4, 1], [2026, 7, 1], 'what did we decide'],
  ['the Q3 2025 roadmap review', [2025, 7, 1], [2025, 10, 1], 'the roadmap review'],
  ['the reorg in Q1 last year', [2025, 1, 1], [2025, 4, 1], 'the reorg'],
  ['the 2025-Q4 freeze', [2025, 10, 1], [2026, 1, 1], 'the freeze'],
  ['the hiring plan in the third quarter of 2025', [2025, 7, 1], [2025, 10, 1], 'the hiring plan'],
  ['the last quarter of last year', [2025, 10, 1], [2026, 1, 1], ''],
  ['the freeze in the first half of the year', [2026, 1, 1], [2026, 7, 1], 'the freeze'],
  ['the second half of last year', [2025, 7, 1], [2026, 1, 1], ''],
  ['H1 2026 goals', [2026, 1, 1], [2026, 7, 1], 'goals'],
  ['前四半期の障害', [2026, 7, 1], [2026, 10, 1], 'の障害'],
  ['今四半期のリリース', [2026, 10, 1], [2027, 1, 1], 'のリリース'],
  ['2025年第3四半期の売上', [2025, 7, 1], [2025, 10, 1], 'の売上'],
  ['去年の第4四半期に決めたこと', [2025, 10, 1], [2026, 1, 1], 'に決めたこと'],
  ['2026年度第1四半期の計画', [2026, 4, 1], [2026, 7, 1], 'の計画'],
  ['今年度の第3四半期', [2026, 10, 1], [2027, 1, 1], ''],
  ['昨年度第4四半期の数字', [2026, 1, 1], [2026, 4, 1], 'の数字'],
  ['今年の上半期に決めた方針', [2026, 1, 1], [2026, 7, 1], 'に決めた方針'],
  ['去年の下半期', [2025, 7, 1], [2026, 1, 1], ''],
  ['2026年度上期の目標', [2026, 4, 1], [2026, 10, 1], 'の目標'],
  ['今年の後半の移行', [2026, 7, 1], [2027, 1, 1], 'の移行'],
  ['先月中旬の障害', [2026, 11, 11], [2026, 11, 21], 'の障害'],
  ['先月頭に決めた', [2026, 11, 1], [2026, 11, 11], 'に決めた'],
  ['今月頭のリリース', [2026, 12, 1], [2026, 12, 11], 'のリリース'],
  ['先週頭のデプロイ', [2026, 11, 23], [2026, 11, 30], 'のデプロイ'],
  ['去年の暮れに話した', [2025, 1, 1], [2026, 1, 1], 'に話した'],
  ['おととしの移行', [2024, 1, 1], [2025, 1, 1], 'の移行'],
  ['the deploy on Nov. 2', [2026, 11, 2], [2026, 11, 3], 'the deploy'],
  ['what we chose the week of Nov 18', [2026, 11, 16], [2026, 11, 23], 'what we chose'],
  ['in the week of November 18th the build broke', [2026, 11, 16], [2026, 11, 23], 'the build broke'],
  ['11月18日の週に決めた', [2026, 11, 16], [2026, 11, 23], 'に決めた'],
  ['the week of 11/18', [2026, 11, 16], [2026, 11, 23], ''],
  ['flaky since the week of Nov 18', [2026, 11, 16], [2026, 12, 2], 'flaky'],
  ['3/15に決めた方針', [2026, 3, 15], [2026, 3, 16], 'に決めた方針'],
  ['12/1のリリース', [2026, 12, 1], [2026, 12, 2], 'のリリース'],
  ['12/24の障害', [2025, 12, 24], [2025, 12, 25], 'の障害'],
  ['11/20(金)の打ち合わせ', [2026, 11, 20], [2026, 11, 21], 'の打ち合わせ'],
  ['１１／２０（金）に話したこと', [2026, 11, 20], [2026, 11, 21], 'に話したこと'],
  ['what did we decide on 3/15', [2026, 3, 15], [2026, 3, 16], 'what did we decide'],
  ['the deploy on 15/3', [2026, 3, 15], [2026, 3, 16], 'the deploy'],
  ['the migration on 1/2', [2026, 1, 2], [2026, 1, 3], 'the migration'],
  ['3/15〜3/20の作業', [2026, 3, 15], [2026, 3, 21], 'の作業'],
  ['12/28-1/5の当番', [2025, 12, 28], [2026, 1, 6], 'の当番'],
  ['the freeze from 11/2 to 11/6', [2026, 11, 2], [2026, 11, 7], 'the freeze'],
  ['flaky since 11/3', [2026, 11, 3], [2026, 12, 2], 'flaky'],
  ['11/3、デプロイした設定', [2026, 11, 3], [2026, 11, 4], '、デプロイした設定'],
  ['月初に決めた件', [2026, 12, 1], [2026, 12, 11], 'に決めた件'],
  ['月末に話したこと', [2026, 11, 21], [2026, 12, 1], 'に話したこと'],
  ['中旬のリリース', [2026, 11, 11], [2026, 11, 21], 'のリリース'],
  ['月半ばごろの障害', [2026, 11, 11], [2026, 11, 21], 'の障害'],
  ['週明けに話した件', [2026, 11, 30], [2026, 12, 2], 'に話した件'],
  ['先週の週明けのデプロイ', [2026, 11, 23], [2026, 11, 25], 'のデプロイ'],
  ['半月前の設計', [2026, 11, 13], [2026, 11, 20], 'の設計'],
  ['半月ほど前に直したバグ', [2026, 11, 13], [2026, 11, 20], 'に直したバグ'],
  ['what did we decide at the end of the month', [2026, 11, 21], [2026, 12, 1], 'what did we decide'],
  ['what broke in mid-month', [2026, 11, 11], [2026, 11, 21], 'what broke'],
  ['この前決めた件', [2026, 11, 17], [2026, 12, 1], '決めた件'],
  ['こないだのバグ', [2026, 11, 17], [2026, 12, 1], 'のバグ'],
  ['この間の会議で話したこと', [2026, 11, 17], [2026, 12, 1], 'の会議で話したこと'],
  ['この前の金曜に決めたリトライ方針', [2026, 11, 27], [2026, 11, 28], 'に決めたリトライ方針'],
  ['こないだの月曜の会議', [2026, 11, 30], [2026, 12, 1], 'の会議'],
  ['the flaky test a couple days ago', [2026, 11, 29], [2026, 11, 30], 'the flaky test'],
  ['年初に決めた目標', [2026, 1, 1], [2026, 1, 16], 'に決めた目標'],
  ['昨年度末のリリース', [2026, 3, 1], [2026, 4, 1], 'のリリース'],
  ['年度末の障害', [2026, 3, 1], [2026, 4, 1], 'の障害'],
  ['この3か月で決めたこと', [2026, 9, 2], [2026, 12, 2], 'で決めたこと'],
  ['この1年で変わった設計', [2025, 12, 2], [2026, 12, 2], 'で変わった設計'],
  ['1年半前の設計', [2025, 5, 17], [2025, 6, 17], 'の設計'],
  ['a year and a half ago we moved to Postgres', [2025, 5, 17], [2025, 6, 17], 'we moved to Postgres'],
  ['two and a half months ago the cache', [2026, 9, 1], [2026, 10, 2], 'the cache'],
  ['the outage the month before last', [2026, 10, 1], [2026, 11, 1], 'the outage'],
  ['the rewrite the year before last', [2024, 1, 1], [2025, 1, 1], 'the rewrite'],
  ['several days ago we chose Redis', [2026, 11, 26], [2026, 11, 30], 'we chose Redis'],
  ['先月後半に決めたこと', [2026, 11, 16], [2026, 12, 1], 'に決めたこと'],
  ['the second half of last month', [2026, 11, 16], [2026, 12, 1], ''],
  ['3月前半のリリース', [2026, 3, 1], [2026, 3, 16], 'のリリース'],
  ['flaky tests in the first half of March', [2026, 3, 1], [2026, 3, 16], 'flaky tests'],
  ['先月中に決めた件', [2026, 11, 1], [2026, 12, 1], 'に決めた件'],
  ['先週後半に話した設計', [2026, 11, 23], [2026, 11, 30], 'に話した設計'],
  ['先週中国のチームと話した件', [2026, 11, 23], [2026, 11, 30], '中国のチームと話した件'],
  ['what did we deploy last Thurs', [2026, 11, 26], [2026, 11, 27], 'what did we deploy'],
  ['on Fri. the migration ran', [2026, 11, 27], [2026, 11, 28], 'the migration ran'],
  ['3月の初めに決めた件', [2026, 3, 1], [2026, 3, 11], 'に決めた件'],
  ['3月の半ばに', [2026, 3, 11], [2026, 3, 21], 'に'],
  ['3月の終わりの障害', [2026, 3, 21], [2026, 4, 1], 'の障害'],
  ['先月の終わりに話した', [2026, 11, 21], [2026, 12, 1], 'に話した'],
  ['先月の末のリリース', [2026, 11, 21], [2026, 12, 1], 'のリリース'],
  ['2025年の暮れに決めた', [2025, 1, 1], [2026, 1, 1], 'に決めた'],
  ['今年の終わりに', [2026, 1, 1], [2027, 1, 1], 'に'],
  ['the migration in early 2025', [2025, 1, 1], [2026, 1, 1], 'the migration'],
  ['late 2025 outages', [2025, 1, 1], [2026, 1, 1], 'outages'],
  ['mid-2025', [2025, 1, 1], [2026, 1, 1], ''],
  ['what we decided at the end of 2025', [2025, 1, 1], [2026, 1, 1], 'what we decided'],
  ['the start of 2026 roadmap', [2026, 1, 1], [2027, 1, 1], 'roadmap'],
  ['flaky tests within the last 2 weeks', [2026, 11, 18], [2026, 12, 2], 'flaky tests'],
  ['what we shipped last fortnight', [2026, 11, 18], [2026, 12, 2], 'what we shipped'],
  ['3日前の午後に直したバグ', [2026, 11, 28], [2026, 11, 29], 'に直したバグ'],
  ['ひと月ほど前の件', [2026, 10, 17], [2026, 11, 17], 'の件'],
  ['先月の中頃に決めた', [2026, 11, 11], [2026, 11, 21], 'に決めた'],
  ['3月中ごろの障害', [2026, 3, 11], [2026, 3, 21], 'の障害'],
  ['the cache change in the last month or so', [2026, 11, 2], [2026, 12, 2], 'the cache change'],
  ['a week or so ago we pinned it', [2026, 11, 21], [2026, 11, 28], 'we pinned it'],
  ['a month or two ago', [2026, 9, 16], [2026, 11, 17], ''],
  ['the previous Friday', [2026, 11, 27], [2026, 11, 28], ''],
  ['the deploy on Friday before last', [2026, 11, 20], [2026, 11, 21], 'the deploy'],
  ['the deploy yesterday at 3pm', [2026, 11, 30], [2026, 12, 1], 'the deploy'],
  ['last Friday around 15:00 the queue stalled', [2026, 11, 27], [2026, 11, 28], 'the queue stalled'],
  ['昨日の15時ごろのデプロイ', [2026, 11, 30], [2026, 12, 1], 'のデプロイ'],
  ['今日の午後3時の会議', [2026, 12, 1], [2026, 12, 2], 'の会議'],
  ['昨日の3時間の障害', [2026, 11, 30], [2026, 12, 1], 'の3時間の障害'],
  ['yesterday at 3 we met', [2026, 11, 30], [2026, 12, 1], 'at 3 we met'],
  ['ここひと月のデプロイ', [2026, 11, 2], [2026, 12, 2], 'のデプロイ'],
  ['on Fri. Then the migration ran', [2026, 11, 27], [2026, 11, 28], 'Then the migration ran'],
  ['on Fri I merged it', [2026, 11, 27], [2026, 11, 28], 'I merged it'],
  ['on Sunday Microsystems called', [2026, 11, 29], [2026, 11, 30], 'Microsystems called'],
  ['last week Thursday we chose Redis', [2026, 11, 26], [2026, 11, 27], 'we chose Redis'],
  ['a week ago Monday the deploy failed', [2026, 11, 23], [2026, 11, 24], 'the deploy failed'],
  ['the prior week', [2026, 11, 23], [2026, 11, 30], ''],
  ['what did we do between Monday and Wednesday', [2026, 11, 30], [2026, 12, 3], 'what did we do'],
  ['from Monday to Wednesday last week the deploys', [2026, 11, 23], [2026, 11, 26], 'the deploys'],
  ['月曜から水曜までの作業', [2026, 11, 30], [2026, 12, 3], 'の作業'],
  ['errors in the past 48 hours', [2026, 11, 29, 11], [2026, 12, 1, 11], 'errors'],
  ['過去72時間のエラー', [2026, 11, 28, 11], [2026, 12, 1, 11], 'のエラー'],
];

describe('time expressions name a period', () => {
  for (const [q, since, until, rest] of CASES) {
    it(q, () => {
      const r = readTime(q, NOW);
      assert.ok(r.period, `no period read from "${q}"`);
      assert.equal(new Date(r.period.sinceMs).toString(), new Date(d(...since)).toString(), 'start');
      assert.equal(new Date(r.period.untilMs).toString(), new Date(d(...until)).toString(), 'end');
      assert.equal(r.text, rest);
    });
  }
});

describe('words that are not time expressions', () => {
  for (const q of [
    'May I ask how the parser handles BOMs?',
    'add a test for the parser',
    'the march of progress in the scheduler',
    'why does port 2025 refuse connections',
    'what is the weekday type in the calendar module',
    'the marching ants selection in the editor',
    'maybe the cache is stale',
    'any documentary to watch tonight?',
    'the order of the flights before today',
    'what time do I wake up on Saturday mornings?',
    'the Monday morning standup',
    'our Friday evening deploys',
    'Monday mornings are slow',
    'every Monday morning we triage',
    '週末に直したい',
    '週末にやる',
    '毎週末に走った',
    '週末にデプロイしたら教えて',
    '週末の障害',
    "let's meet Friday morning",
    "We'll ship Monday morning",
    'I think Tuesday afternoon at 2:00 pm could work well.',
    'I go hiking on weekends',
    'what did we decide about weekend deploys',
    'the weekend shift schedule',
    'ask Jan 3 times before merging',
    'It broke. May I see the log?',
    'Mar 2 retries were not enough',
    'この3つの関数',
    'この5日に出すリリース',
    'この1年生の課題',
    'the last hour of the meeting',
    'I work Monday through Friday',
    'meet on sat if needed',
    'what did we say on Sun Microsystems',
    'early 20250 rows were lost',
    'ひと月かかった移行',
    'the end of 3000 loops',
    'the office on Wed Street',
    "get today's date in UTC",
    "the helper that returns yesterday's timestamp",
    '今日の日付を返す関数',
    '先月比で20%増えた',
    '去年比の計算',
    '月曜始まりのカレンダー設定',
    '金曜締めの週報',
    '20日前後かかる見込み',
    'earlier in the week of the launch',
    '3〜5日かかる見込み',
    'travel from the 10th to the 14th of next month',
    'on the 10th to fix it',
    '10日から15日程度で終わる',
    '来週の金曜にリリース',
    '来年の3月に移行する',
    '来週の月曜から金曜まで',
    '今度の金曜の打ち合わせ',
    'next March we migrate',
    'the demo on Friday next week',
    "next Monday's demo",
    'upgrade to v2026.11.27',
    'pi is 3.14.2026 digits',
    "monday's meeting notes template",
    'the last day of the trial',
    'several Mondays ago',
    "my New Year's resolution",
    'in the new year we migrate the queue',
    'API GWの設定',
    '年末調整の書類',
    'the Christmas theme for the landing page',
    'the Halloween sale banner',
    "the Valentine's Day campaign",
    'クリスマスキャンペーンのLP',
    'バレンタイン企画の画面',
    'クリスマスに向けたセールの準備',
    '年末までにリリースしたい',
    'GWの予定を決める',
    'ship the fix by Christmas',
    'the summer sale banner',
    'upgrade this Spring Boot app',
    'I run in the summer',
    'the tests fall over on CI',
    '夏に向けたセールの準備',
    '秋の新機能',
    '1970年代のUNIX',
    'I took a step back',
    'roll the release back two days',
    'on the 2nd run it failed',
    '1日に3回デプロイする',
    '3日に1回のバックアップ',
    '3日で終わった移行',
    '毎月15日に請求する',
    'the Q3 roadmap',
    'plan the work for Q3',
    'ship it by Q2',
    'a quarter of the tests fail',
    'the quarterly report template',
    'the H1 heading style',
    'the first half of the match',
    '第3四半期の計画',
    '上半期の目標',
    '前半の処理が遅い',
    '1/2の確率で落ちる',
    '1/3のテストが失敗した',
    'メモリを1/2に減らした',
    '24/7の監視',
    'src/3/15の設定',
    'v1/2のAPI',
    '3/15 tests failed',
    'ship it by 3/15',
    '月末までに出す',
    '月末締めの請求',
    '毎月末のバッチ',
    '月末月初は忙しい',
    '来月末の予定',
    '来週の週明けに出す',
    '週明けまでに直す',
    'この前の行を消す',
    'この間に処理が走る',
    '年初来高値を更新',
    '年度末までに出す',
    'ship it by the end of the month',
    'the mid-month review template',
    'the end of the week',
    '12/31までに直す',
    '3/20に向けた準備',
    'a ratio of 3/4 on the load balancer',
    'restore db-2026-11-27-backup.tar on staging',
    // A version named by a date: an API pinned to it, a language edition.
    "apiVersion: '2023-10-16'",
    'bump the stripe api version 2024-06-20',
    'GET /deployments?api-version=2024-06-01',
    'the 2025-01 API version',
    'crates in 2024 edition',
    // A habit, not a time.
    '毎年12月に更新する証明書',
    '毎週月曜の定例',
    'every March we rotate keys',
    'each December the certs expire',
    'the job runs every other Friday',
    // A time still to come (asked on Tuesday 1 December): memory holds none of it yet.
    'the freeze at the end of this month',
    'I am donating the old shoes this Saturday',
    'tennis with friends this Sunday at the park',
    '慶応3年12月9日の王政復古',
    '98年7月25日に開催されたイベント',
    'the 2/3 majority rule',
    // Code pasted or quoted: material, not a time told of.
    'what is wrong here\n```\nconst since = new Date("2025-12-01");\n```',
    '```\n2026-11-27 10:00:01,123 ERROR db timeout\n```\nwhy?',
    'is `2026-03` the right partition key?',
  ]) {
    it(q, () => {
      const r = readTime(q, NOW);
      assert.equal(r.period, undefined, `read a period from "${q}": ${r.period?.label}`);
      assert.equal(r.text, q);
    });
  }
  it('code in the prompt asks for no latest time and no order; the question below it still does', () => {
    const code = '```ts\nconst latest = items.at(-1); // the first one, or the last time it ran?\n```\n';
    const plain = readTime(`${code}why does this return undefined?`, NOW);
    assert.deepEqual([plain.period, plain.latest, plain.order, plain.text], [undefined, undefined, undefined, `${code}why does this return undefined?`]);
    const asked = readTime(`${code}what did we decide last time about the retries?`, NOW);
    assert.equal(asked.latest, true);
    assert.equal(asked.text, `${code.trimEnd()} what did we decide about the retries?`);
  });
  it('code in the prompt does not hide the time the person asks about', () => {
    const asked = readTime('```\nconst since = new Date("2025-01-01");\n```\nwhat did we do about `since` last week?', NOW);
    assert.equal(asked.period?.sinceMs, d(2026, 11, 23));
    assert.equal(asked.text, '``` const since = new Date("2025-01-01"); ``` what did we do about `since` ?');
  });
  it('the first expression names the period and every one leaves the question', () => {
    const r = readTime('last week or maybe yesterday: the flaky deploy', NOW);
    assert.equal(r.period?.sinceMs, d(2026, 11, 23));
    assert.equal(r.text, 'or maybe : the flaky deploy');
  });
  it('a part of a month leaves with it, "for the first time" stays', () => {
    assert.equal(readTime('3月初めのリリース', NOW).text, 'のリリース');
    assert.equal(readTime('3月初めて動いたテスト', NOW).text, '初めて動いたテスト');
    assert.equal(readTime('今年初めてのリリース', NOW).text, '初めてのリリース');
  });
  it('moments ago (a moment ago, an hour ago, 20 minutes ago, さっき, 先ほど, 3時間前): the 24 hours up to now', () => {
    for (const [q, rest] of [
      ['the config we changed an hour ago', 'the config we changed'],
      ['what I asked a moment ago', 'what I asked'],
      ['the test that failed 20 minutes ago', 'the test that failed'],
      ['さっきのエラー', 'のエラー'],
      ['先ほど話したキャッシュ', '話したキャッシュ'],
      ['3時間前に直したバグ', 'に直したバグ'],
    ] as const) {
      const r = readTime(q, NOW);
      assert.equal(r.period?.sinceMs, NOW - 86_400_000, q);
      assert.equal(r.period?.untilMs, NOW + 1, q);
      assert.equal(r.text, rest);
    }
    for (const q of ['wait a moment', 'back in an hour', 'a 20 minutes timeout']) assert.equal(readTime(q, NOW).period, undefined, q);
  });
  it('counted back from today: asked on 3 December, a month ago is around 3 November (not 30 November); on 31 March, around 28 February', () => {
    const dec3 = new Date(2026, 11, 3, 11).getTime();
    assert.equal(readTime('what did we decide a month ago', dec3).period?.label, '2026-10-19 – 2026-11-18');
    assert.equal(readTime('what did we decide last month', dec3).period?.label, '2026-11-01 – 2026-11-30', 'last month stays the calendar one');
    assert.equal(readTime('what did we decide a month ago', new Date(2026, 2, 31, 11).getTime()).period?.label, '2026-02-13 – 2026-03-15');
    assert.equal(readTime('what broke a week ago', new Date(2026, 11, 7, 11).getTime()).period?.label, '2026-11-27 – 2026-12-03', 'asked on a Monday, not the week that ended yesterday');
  });
  it('on a Sunday, over the weekend is this one and last weekend the one before, each to now', () => {
    const sunday = new Date(2026, 11, 6, 11, 0, 0).getTime();
    assert.equal(readTime('the deploy over the weekend', sunday).period?.label, '2026-12-05 – 2026-12-06');
    assert.equal(readTime('the deploy last weekend', sunday).period?.label, '2026-11-28 – 2026-12-06');
  });
  it('three misreadings found in review: the past month on the 31st, a count after a name, "May I" after a sentence', () => {
    // On 31 March the past month began on 1 March (28 February's next day), not on 3 March.
    assert.equal(readTime('what broke in the past month', new Date(2026, 2, 31, 11).getTime()).period?.sinceMs, d(2026, 3, 1));
    assert.equal(readTime('what broke in the past month', new Date(2026, 11, 31, 11).getTime()).period?.sinceMs, d(2026, 12, 1));
    assert.equal(readTime('what broke in the past month', NOW).period?.sinceMs, d(2026, 11, 2), 'on other days as before');
    assert.equal(readTime('ask Jan 3 times before merging', NOW).period, undefined);
    assert.equal(readTime('the Jan 3 deploy', NOW).period?.sinceMs, d(2026, 1, 3), 'a date after a month name still is one');
    assert.equal(readTime('It broke. May I see the log?', NOW).period, undefined);
    assert.equal(readTime('It broke. In May we had the same error', NOW).period?.sinceMs, d(2026, 5, 1));
  });
  it('a named day is the latest that has begun; "last" the one before this year\'s; "this" this year\'s once it has begun (to come, it names no period)', () => {
    const dec27 = new Date(2026, 11, 27, 11).getTime();
    assert.equal(readTime('the deploy at Christmas', dec27).period?.label, '2026-12-24 – 2026-12-26');
    assert.equal(readTime('the deploy last Christmas', dec27).period?.label, '2025-12-24 – 2025-12-26');
    assert.equal(readTime('the deploy at Christmas', NOW).period?.label, '2025-12-24 – 2025-12-26', 'on 1 December, last year\'s');
    assert.equal(readTime('the freeze this Christmas', NOW).period, undefined, 'still to come: no period, its words searched');
    assert.equal(readTime('the freeze this Christmas', NOW).text, 'the freeze this Christmas');
    assert.equal(readTime('the freeze this Christmas', dec27).period?.label, '2026-12-24 – 2026-12-26');
    assert.equal(readTime('the freeze at the end of this month', dec27).period?.label, '2026-12-21 – 2026-12-31', 'begun: read');
    assert.equal(readTime('the freeze over Christmas 2024', NOW).period?.label, '2024-12-24 – 2024-12-26');
    assert.equal(readTime('the freeze at Christmas last year', NOW).period?.label, '2025-12-24 – 2025-12-26');
    assert.equal(readTime('the deploy on Thanksgiving', new Date(2025, 11, 1).getTime()).period?.label, '2025-11-27', 'the fourth Thursday of November');
  });
  it('two times are one span only where the question joins them', () => {
    assert.equal(readTime('what we shipped last Tuesday and Wednesday', NOW).period?.label, '2026-11-24', 'a bare "and": the first names the period');
    assert.equal(readTime('the deploy of March 10 to March 3', NOW).period?.label, '2026-03-10', 'backwards: the first');
    assert.equal(readTime('compare March 3 to the one of March 10', NOW).period?.label, '2026-03-03', 'words between: the first');
    assert.equal(readTime('March 3 to 5 people', NOW).period?.label, '2026-03-03', 'a count after it, not a day');
    assert.equal(readTime('on March 3 - 5 tests failed', NOW).period?.label, '2026-03-03', 'a count of things');
    assert.equal(readTime('between March 3 and 10', NOW).period?.label, '2026-03-03 – 2026-03-10');
  });
  it('the second of two times takes the first\'s year when only the first says it; one of its own stays', () => {
    for (const [q, label] of [
      ['what did we change from March 3, 2025 to April 5', '2025-03-03 – 2025-04-05'],
      ['the migration between March 2025 and June', '2025-03-01 – 2025-06-30'],
      ['the plans in March 2025 or April', '2025-03-01 – 2025-04-30'],
      ['2025年3月から6月まで使っていた設定', '2025-03-01 – 2025-06-30'],
      ['1832年4月4日から7月5日までの航海', '1832-04-04 – 1832-07-05'],
      ['from December 20, 2025 to January 5 we froze deploys', '2025-12-20 – 2026-01-05'],
      ['2025年12月から2月まで', '2025-12-01 – 2026-02-28'],
      ['from March 2025 to last week', '2025-03-01 – 2026-11-29'],
      ['from March 2025 to today', '2025-03-01 – 2026-12-01'],
      ['2025年3月3日から月曜まで', '2025-03-03 – 2026-11-30'],
    ] as const) assert.equal(readTime(q, NOW).period?.label, label, q);
  });
  it('a time said as a bound: everything before it ("before", "prior to", より前: up to its start; "until", まで, 以前: through its end), or after it up to today; the words leave the question', () => {
    for (const [q, untilDay, rest] of [
      ['what we rewrote before Christmas', '2025-12-24', 'what we rewrote'],
      ['the schema before October', '2026-10-01', 'the schema'],
      ['the retry rule prior to last week', '2026-11-23', 'the retry rule'],
      ['the flags we kept until last Friday', '2026-11-28', 'the flags we kept'],
      ['which config did we use till March', '2026-04-01', 'which config did we use'],
      ['10月より前の設計', '2026-10-01', 'の設計'],
      ['10月以前の設計', '2026-11-01', 'の設計'],
      ['先週までに決めたこと', '2026-11-30', '決めたこと'],
      ['2007年までに新設された学部', '2008-01-01', '新設された学部'],
      ['お盆前に決めたこと', '2026-08-13', 'に決めたこと'],
      ['which ORM did we use before 2025', '2025-01-01', 'which ORM did we use'],
      ['the flags we kept until 2024', '2025-01-01', 'the flags we kept'],
      ['年末前に片付けたバグ', '2025-12-16', 'に片付けたバグ'],
    ] as const) {
      const r = readTime(q, NOW);
      assert.equal(r.period?.sinceMs, 0, q);
      assert.equal(r.period?.before, true, q);
      assert.equal(r.period?.label, `before ${untilDay}`, q);
      assert.equal(r.text, rest, q);
    }
    for (const [q, label, rest] of [
      ['what changed after October', '2026-11-01 – 2026-12-01', 'what changed'],
      ['the deploys after New Year', '2026-01-03 – 2026-12-01', 'the deploys'],
      ['10月より後の変更', '2026-11-01 – 2026-12-01', 'の変更'],
      ['10月以後の変更', '2026-10-01 – 2026-12-01', 'の変更'],
      ['お盆後に直したもの', '2026-08-17 – 2026-12-01', 'に直したもの'],
    ] as const) {
      const r = readTime(q, NOW);
      assert.equal(r.period?.label, label, q);
      assert.equal(r.period?.before, undefined, q);
      assert.equal(r.text, rest, q);
    }
    // A moment told by its distance, a day or week beside, a span: read as before.
    assert.equal(readTime('two days before Christmas we froze', NOW).period?.label, '2025-12-24 – 2025-12-26');
    assert.equal(readTime('the freeze the week before Thanksgiving', NOW).period?.label, '2026-11-19 – 2026-11-25');
    assert.equal(readTime('the deploy the day before yesterday', NOW).period?.label, '2026-11-29');
    assert.equal(readTime('from March until May', NOW).period?.label, '2026-03-01 – 2026-05-31');
    assert.equal(readTime('3月から5月まで', NOW).period?.label, '2026-03-01 – 2026-05-31');
    assert.equal(readTime('10日前に直した', NOW).period?.label, '2026-11-21', 'ten days ago, not before the 10th');
    assert.equal(readTime('10月前半', NOW).period?.label, '2026-10-01 – 2026-10-15');
    assert.equal(readTime('20日前後', NOW).period, undefined, 'around the 20th, or 20 days: no bound');
    // A year alone after a bound's word, not a count.
    for (const q of ['it fails after 2000 retries', 'cap the heap until 2048 MB', 'before 2030 we must migrate']) assert.equal(readTime(q, NOW).period, undefined, q);
    assert.equal(readTime('the notes since October', NOW).period?.label, '2026-10-01 – 2026-12-01');
    // Up to now bounds nothing: the time as said.
    assert.equal(readTime('今日までの作業', NOW).period?.label, '2026-12-01');
    // A deadline stays words, as before.
    for (const q of ['年末までに終わらせる', 'by Christmas', '12/31まで']) assert.equal(readTime(q, NOW).period, undefined, q);
  });
  it('a part of a day leaves with its day, which stays whole; a word it begins stays (朝会, 昼ご飯)', () => {
    assert.equal(readTime('昨日の朝会で決めた', NOW).text, 'の朝会で決めた');
    assert.equal(readTime('昨日の朝会で決めた', NOW).period?.label, '2026-11-30');
    assert.equal(readTime('今日の昼ご飯', NOW).text, 'の昼ご飯');
    assert.equal(readTime('what I ate on Saturday mornings', NOW).period, undefined, 'a habit, not a day');
  });
  it('a season: "last" the latest that has ended, "this" the one now or this year\'s, a year\'s winter begins in its December', () => {
    const feb = new Date(2027, 1, 10, 11).getTime();
    const jul = new Date(2026, 6, 10, 11).getTime();
    assert.equal(readTime('the outage this winter', feb).period?.label, '2026-12-01 – 2027-02-28');
    assert.equal(readTime('the outage last winter', feb).period?.label, '2025-12-01 – 2026-02-28', 'this one has not ended');
    assert.equal(readTime('what we shipped last summer', jul).period?.label, '2025-06-01 – 2025-08-31', 'in July, the one before');
    assert.equal(readTime('what we shipped this summer', jul).period?.label, '2026-06-01 – 2026-08-31');
    assert.equal(readTime('2025年の冬の障害', NOW).period?.label, '2025-12-01 – 2026-02-28');
    assert.equal(readTime('今冬の障害', NOW).period?.label, '2026-12-01 – 2027-02-28');
  });
  it('a fiscal year (年度) begins on 1 April: in March, 今年度 began last April', () => {
    assert.equal(readTime('今年度の障害', new Date(2027, 2, 10, 11).getTime()).period?.label, '2026-04-01 – 2027-03-31');
    assert.equal(readTime('昨年度の障害', new Date(2027, 3, 10, 11).getTime()).period?.label, '2026-04-01 – 2027-03-31');
    assert.equal(readTime('年度末の障害', new Date(2027, 2, 10, 11).getTime()).period?.label, '2027-03-01 – 2027-03-31', 'in March, this one');
    assert.equal(readTime('年度末の障害', new Date(2027, 3, 10, 11).getTime()).period?.label, '2027-03-01 – 2027-03-31', 'in April, the one just ended');
  });
  it('a third of the month without a month is the latest that has begun: on the 22nd, this month\'s end; on the 5th, last month\'s middle', () => {
    const dec22 = new Date(2026, 11, 22, 11).getTime();
    assert.equal(readTime('月末に話したこと', dec22).period?.label, '2026-12-21 – 2026-12-31');
    assert.equal(readTime('what we decided at the end of the month', dec22).period?.label, '2026-12-21 – 2026-12-31');
    assert.equal(readTime('中旬のリリース', dec22).period?.label, '2026-12-11 – 2026-12-20');
    assert.equal(readTime('中旬のリリース', new Date(2026, 11, 5, 11).getTime()).period?.label, '2026-11-11 – 2026-11-20');
    assert.equal(readTime('週明けに話した件', new Date(2026, 11, 6, 11).getTime()).period?.label, '2026-11-30 – 2026-12-01', 'on a Sunday, the Monday of the week that ends today');
  });
  it('a month still to come this year means last year’s', () => {
    const r = readTime('in December', new Date(2026, 5, 10).getTime());
    assert.equal(r.period?.sinceMs, d(2025, 12, 1));
  });
});

describe('a question about how past moments stand to each other', () => {
  for (const q of [
    'What is the order of the three deploys from earliest to latest?',
    'In what order did we try the cache layouts?',
    'Which came first, the outage or the key rotation?',
    'Who finished first, Emma or Alex?',
    'Did we pin the version before or after the build broke?',
    'How many days passed between the outage and the fix?',
    'How long after the migration did the alerts start?',
    'How many weeks passed between the freeze and the release?',
    'デプロイの順番を教えて',
    'どちらが先だった？障害と鍵の更新',
    '移行から何日後にアラートが出た？',
    '修正に何か月かかった？',
  ]) {
    it(`asks about order or elapsed time: ${q}`, () => assert.equal(asksAboutOrder(q), true));
  }
  for (const q of [
    'Which streaming service did I start using most recently?',
    'What is the latest version of the API client?',
    'Where is my HelloFresh order?',
    'What was my order of dumplings last time?',
    'What order did I place at the bakery?',
    'How long is the deploy window?',
    'How many days a week do we deploy?',
    'How many days ago did we switch the CI runner?',
    'How many months have passed since I last rotated the keys?',
    'CIを切り替えたのは何日前？',
    'ビルドはあと何年かかるか',
    'For the first time the test passed: why?',
    'キャッシュの設定はどうした？',
    '先月の障害の原因',
  ]) {
    it(`does not: ${q}`, () => assert.equal(asksAboutOrder(q), false));
  }
});

describe('the latest time: words that ask for the newest memory on the topic, not a period', () => {
  for (const [q, rest] of [
    ['what did we decide last time about the retry policy', 'what did we decide about the retry policy'],
    ['the last time the deploy failed', 'the deploy failed'],
    ['What type of camera lens did I purchase most recently?', 'What type of camera lens did I purchase ?'],
    ['the most recent flaky test', 'the flaky test'],
    ["what's the latest on the migration", "what's on the migration"],
    ['前回決めたリトライの方針', '決めたリトライの方針'],
    ['直近の障害の原因', 'の障害の原因'],
    ["let's continue where we left off", "let's continue"],
    ['where did we leave off?', '?'],
    ['Continue where I left off with the cache refactor', 'Continue with the cache refactor'],
    ["let's pick up where we stopped", "let's pick up"],
    ['Where were we?', '?'],
    ['what did we decide in our last session about retries', 'what did we decide about retries'],
    ['what did we do in the previous conversation?', 'what did we do in ?'],
    ['中断したところから再開しよう', 'から再開しよう'],
    ['前のセッションで何をした？', 'で何をした？'],
  ] as const) {
    it(q, () => {
      const r = readTime(q, NOW);
      assert.deepEqual([r.latest, r.period, r.text], [true, undefined, rest]);
    });
  }
  it('with a period: both read, the period named', () => {
    const r = readTime('the most recent deploy last week', NOW);
    assert.deepEqual([r.latest, r.period?.label, r.text], [true, '2026-11-23 – 2026-11-29', 'the deploy']);
  });
  for (const q of [
    'what did I do previously with the cache',
    'which service have I been using lately',
    'I recently switched to pnpm: why does the install fail?',
    '最近のビルドエラー',
    'the latest version of the API client',
    'npm install react@latest',
    '最新のNodeで動く？',
    '前回比で遅くなった',
    '旧豊浦郡合併時直近の国勢調査',
    '最近傍探索のライブラリ',
    "last time's figure was wrong",
    'the last time frame of the animation',
    'How many weeks passed between the last time I sold cakes and the spring market?',
    'we left off the trailing slash',
    'leave off the --force flag',
    '続きをお願い',
    'restore the last session on startup',
    'the last session token expired',
    "I'm looking back at our previous conversation about the Seco recipe",
    'the app reopens where the user left it',
    '以前のセッションID',
  ]) {
    it(`not read: ${q}`, () => {
      const r = readTime(q, NOW);
      assert.deepEqual([r.latest, r.period, r.text], [undefined, undefined, q]);
    });
  }
  it('直近 before a length is a period, not the latest', () => {
    const r = readTime('直近3か月の障害', NOW);
    assert.deepEqual([r.latest, r.text], [undefined, 'の障害']);
    assert.ok(r.period);
  });
});
