/**
 * A small identifier set written for this project: code-ish memories and the queries a
 * developer types to find them again (file names, camelCase, snake_case, error codes, CLI
 * flags, 2-letter acronyms, mixed Japanese/English). Each query expects one memory in the
 * top 3. Distractors share words with the targets, so a match must be precise to win.
 */
export const IDENTIFIER_MEMORIES: Array<{ id: string; question: string; answer: string }> = [
  { id: 'id-sqlite-lock', question: 'better-sqlite3 throws SQLITE_BUSY when two hooks write at once', answer: 'Set busy_timeout to 5000 and open the database in WAL mode; the second writer then waits instead of failing.' },
  { id: 'id-sqlite-general', question: 'Which SQLite version ships with Debian bookworm?', answer: 'Bookworm ships SQLite 3.40; we build our own for FTS5 trigram support.' },
  { id: 'id-use-effect', question: 'Why does useEffect run twice in development?', answer: 'React StrictMode mounts, unmounts and mounts again to surface missing cleanups; production runs it once.' },
  { id: 'id-effect-general', question: 'What side effects does the migration script have?', answer: 'It rewrites the config file and drops the old cache table.' },
  { id: 'id-db-ts', question: 'Where is the connection pool configured?', answer: 'In src/db.ts: createPool() reads DATABASE_URL and caps connections at 10.' },
  { id: 'id-db-test', question: 'How do the database tests get a clean schema?', answer: 'test/setup.ts truncates every table before each suite.' },
  { id: 'id-enoent', question: 'npm install fails with ENOENT on the postinstall script', answer: 'The postinstall path was relative to the wrong folder; use path.join(__dirname, ...) instead.' },
  { id: 'id-eacces', question: 'Permission denied when writing to /usr/local/lib', answer: 'EACCES: install node with nvm, or set npm prefix to a folder you own.' },
  { id: 'id-err-module', question: 'ERR_MODULE_NOT_FOUND after switching to ESM', answer: 'Relative imports in ESM need the .js extension, even from TypeScript sources.' },
  { id: 'id-no-verify', question: 'How do I commit without running the pre-commit hook?', answer: 'git commit --no-verify skips pre-commit and commit-msg hooks.' },
  { id: 'id-force-lease', question: 'Safer alternative to force pushing a rebased branch?', answer: 'git push --force-with-lease refuses if the remote moved since your last fetch.' },
  { id: 'id-ci-cache', question: 'CI takes 12 minutes because node_modules is rebuilt every run', answer: 'Cache ~/.npm keyed on package-lock.json; npm ci then installs from the cache.' },
  { id: 'id-ci-flaky', question: 'A test fails only on the build server, never locally', answer: 'The server has 2 cores; the test assumed parallel workers finish in order.' },
  { id: 'id-go-ctx', question: 'Go context cancellation does not stop my goroutine', answer: 'The goroutine must select on ctx.Done(); cancelling the context only closes the channel.' },
  { id: 'id-good-practice', question: 'What are good practices for naming branches?', answer: 'Use a prefix like feature/ or fix/ and a short description.' },
  { id: 'id-db-index', question: 'The DB query on orders is slow', answer: 'Add a composite index on (customer_id, created_at); the planner then avoids the full scan.' },
  { id: 'id-sqlite-ja', question: 'SQLiteのロックでフックがタイムアウトする', answer: 'busy_timeoutを設定し、WALモードで開くと二つ目の書き込みは待つようになる。' },
  { id: 'id-lock-ja', question: 'ファイルロックの取り方', answer: 'O_EXCLでロックファイルを作成し、持ち主のPIDを書き込む。' },
  { id: 'id-auth-ja', question: '認証トークンの有効期限が切れたときの処理', answer: 'リフレッシュトークンで新しいアクセストークンを取り、元のリクエストを再送する。' },
  { id: 'id-auth-general', question: 'ログイン画面のデザインを変えたい', answer: 'ボタンの色と余白を調整した。' },
  { id: 'id-k8s', question: 'kubectl rollout restart does nothing on the api deployment', answer: 'The pod template did not change; rollout restart adds an annotation, check that RBAC lets you patch deployments.' },
  { id: 'id-tsconfig', question: 'noUncheckedIndexedAccess makes every array access possibly undefined', answer: 'That is the point of the flag: narrow with a check, or use .at() with a fallback.' },
  { id: 'id-port', question: 'Vite dev server says port 5173 is already in use', answer: 'Another vite instance is running; kill it or pass --port 5174.' },
  { id: 'id-json-parse', question: 'JSON.parse fails on a file with a BOM', answer: 'Strip \\uFEFF before parsing; editors on Windows add it.' },
];

export const IDENTIFIER_QUERIES: Array<{ query: string; expect: string }> = [
  { query: 'sqlite busy', expect: 'id-sqlite-lock' },
  { query: 'better-sqlite3', expect: 'id-sqlite-lock' },
  { query: 'useEffect twice', expect: 'id-use-effect' },
  { query: 'src/db.ts', expect: 'id-db-ts' },
  { query: 'db.ts pool', expect: 'id-db-ts' },
  { query: 'ENOENT postinstall', expect: 'id-enoent' },
  { query: 'EACCES', expect: 'id-eacces' },
  { query: 'ERR_MODULE_NOT_FOUND', expect: 'id-err-module' },
  { query: '--no-verify', expect: 'id-no-verify' },
  { query: 'force-with-lease', expect: 'id-force-lease' },
  { query: 'CI cache', expect: 'id-ci-cache' },
  { query: 'go ctx goroutine', expect: 'id-go-ctx' },
  { query: 'DB slow', expect: 'id-db-index' },
  { query: 'SQLiteのロック', expect: 'id-sqlite-ja' },
  { query: '認証', expect: 'id-auth-ja' },
  { query: 'kubectl rollout', expect: 'id-k8s' },
  { query: 'noUncheckedIndexedAccess', expect: 'id-tsconfig' },
  { query: 'port 5173', expect: 'id-port' },
  { query: 'JSON.parse BOM', expect: 'id-json-parse' },
];
