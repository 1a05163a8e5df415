/**
 * Ordinary coding requests, written for this project: what a developer types into an agent
 * all day, none of which asks about an earlier session. Per-prompt recall must stay silent
 * on (nearly) all of them (bench/recall.ts).
 */
export const ORDINARY_EN = `add a unit test for the parser
rename this variable to something clearer
fix the typo in the README
run the tests and tell me what fails
make this function async
why is this test failing
add error handling to the fetch call
refactor this component into smaller pieces
write a docstring for this function
can you explain what this regex does
update the dependencies to their latest versions
add a loading spinner to the submit button
convert this file to TypeScript
remove the unused imports
format the code with prettier
add input validation to the signup form
create a new endpoint that returns the user's orders
the build is broken, please fix it
add logging to the payment service
write a migration that adds a created_at column
set up eslint for this project
make the header sticky on mobile
add pagination to the list view
cache the result of this expensive call
split this long function into helpers
implement dark mode toggle
add a retry to the http client
write an integration test for the login flow
use a map instead of nested loops here
check this code for security issues
add types for the API response
why does this component re-render so often
optimize this SQL query
add a health check endpoint
create a Dockerfile for the app
set up GitHub Actions to run tests on push
add a CLI flag for verbose output
parse the CSV and print the totals
sort the results by date descending
handle the empty state in the table
write a script to rename all the image files
add a README section about configuration
extract the magic numbers into constants
make the error messages more helpful
add a timeout to this request
debounce the search input
review my changes before I commit
squash these commits into one
generate a changelog from the commits
add a progress bar to the download
write a function that deduplicates the list
implement the TODO in utils.ts
add keyboard shortcuts to the editor
make the modal accessible
upgrade to the new version of the router
add a feature flag for the new checkout
delete the dead code in the legacy folder
bump the version and tag a release
profile why startup is slow
add a test for the edge case with an empty string`.split('\n');

export const ORDINARY_JA = `このパーサーの単体テストを追加して
この変数名をもっと分かりやすくして
READMEの誤字を直して
テストを実行して失敗したものを教えて
この関数を非同期にして
このテストが落ちる理由を調べて
fetch呼び出しにエラー処理を追加して
このコンポーネントを小さく分割して
この正規表現が何をしているか説明して
依存パッケージを最新に更新して
送信ボタンにローディング表示を追加して
このファイルをTypeScriptに変換して
使っていないimportを削除して
サインアップフォームに入力チェックを追加して
ユーザーの注文一覧を返すエンドポイントを作って
ビルドが壊れているので直して
決済サービスにログを追加して
created_atカラムを追加するマイグレーションを書いて
スマホでヘッダーを固定表示にして
一覧画面にページネーションを追加して
この重い処理の結果をキャッシュして
ダークモードの切り替えを実装して
ログイン処理の結合テストを書いて
このSQLクエリを最適化して
ヘルスチェック用のエンドポイントを追加して
アプリのDockerfileを作成して
プッシュ時にテストが走るようにCIを設定して
CSVを読み込んで合計を表示して
結果を日付の新しい順に並べて
テーブルが空のときの表示を作って
マジックナンバーを定数に切り出して
エラーメッセージをもっと親切にして
このリクエストにタイムアウトを設定して
検索入力にデバウンスを入れて
コミット前に変更をレビューして
コミットを一つにまとめて
変更履歴を生成して
リストの重複を取り除く関数を書いて
モーダルをアクセシブルにして
起動が遅い原因をプロファイルして`.split('\n');
