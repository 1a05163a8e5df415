/** Synthetic memories for the viewer's tests and its README screenshot (written for this project). */
import type { MemoryRecord } from '../../src/types.js';

const base = Date.parse('2026-11-20T09:00:00.000Z');
const day = 86_400_000;
let n = 0;
function m(over: Partial<MemoryRecord> & { question: string; answer: string; daysAgo: number }): MemoryRecord {
  n++;
  const { daysAgo, ...rest } = over;
  return {
    v: 1,
    id: `${n.toString(16).padStart(4, '0')}${'c0ffee'.repeat(5).slice(0, 28)}`,
    machine: 'laptop',
    project: 'shop',
    session_id: 'sess-shop-1',
    source: 'claude-code',
    git_branch: 'main',
    cwd: '/home/dev/shop',
    timestamp: new Date(base - daysAgo * day).toISOString(),
    ...rest,
  };
}

export const VIEWER_MEMORIES: MemoryRecord[] = [
  m({ daysAgo: 1, question: 'Why does the cart total round wrong for JPY?', answer: 'JPY has no minor unit: the money helper divided every amount by 100. Fixed in src/money.ts with a currency exponent table (JPY 0, USD 2, KWD 3) and a test per currency.', files: ['src/money.ts', 'test/money.test.ts'] }),
  m({ daysAgo: 1, question: 'Do we send JPY amounts to the payment provider in minor units too?', answer: 'No: for zero-exponent currencies the provider wants the amount as is. The exponent table now drives both the display and the API payload.' }),
  m({ daysAgo: 2, question: 'The checkout button can be clicked twice and creates two orders', answer: 'Disabled the button while the request is in flight and made POST /orders idempotent with an Idempotency-Key header stored for 24 h.', files: ['src/checkout/Submit.tsx', 'src/api/orders.ts'] }),
  m({ daysAgo: 9, machine: 'desktop', project: 'api', session_id: 'sess-api-1', question: 'SQLITE_BUSY: database is locked in the worker under load', answer: 'Set busy_timeout = 5000 and moved the writes into one transaction per batch; WAL lets readers continue meanwhile.' }),
  m({ daysAgo: 12, machine: 'desktop', project: 'api', session_id: 'sess-api-1', question: 'How do we deploy the staging API?', answer: 'Push to the staging branch: the pipeline builds the image, runs the migrations, then swaps the service.' }),
  m({ daysAgo: 30, machine: 'server', project: 'api', session_id: 'sess-api-2', source: 'codex', question: 'Which queue backs the email jobs?', answer: 'BullMQ on the shared Redis, queue name mail:outbox, 5 attempts with exponential backoff.' }),
  m({ daysAgo: 45, machine: 'server', project: 'api', session_id: 'sess-api-2', source: 'codex', question: '決済APIのタイムアウトは何秒に設定した？', answer: '決済APIのタイムアウトは10秒です。PAY_TIMEOUT_MS で設定し、リトライは冪等キー付きで2回までです。' }),
  m({ daysAgo: 60, project: 'blog', session_id: 'sess-blog-1', question: 'Which static site generator did we settle on for the blog?', answer: 'Astro: islands keep pages light, MDX works out of the box, and the RSS feed plugin covers what we need.' }),
  m({ daysAgo: 75, project: 'blog', session_id: 'sess-blog-1', source: 'note', question: 'Remember: the blog deploys from the gh-pages branch, never from main.', answer: '' }),
  m({ daysAgo: 3, project: 'shop', session_id: 'sess-xss', question: '<script>window.__pwned = 1</script> how do we escape user HTML in reviews?', answer: 'Render it as text. A review like <img src=x onerror="window.__pwned = 2"> must show up literally; **markdown** and \u001b[31mANSI red\u001b[0m too.' }),
];
