/**
 * Writes test/fixtures/tiny-model/: a BERT-shaped feature-extraction model small enough to
 * commit, so the test suite runs the real @huggingface/transformers pipeline offline.
 *
 * The "network" is one Gather over a seeded random matrix (a static token embedding), so
 * mean pooling gives a bag-of-tokens vector: texts that share words are near each other.
 * That is all the tests need from a model. Deterministic: same bytes on every run.
 *
 *   npm run gen:tiny-model            # writes test/fixtures/tiny-model/
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import onnxProto from 'onnx-proto';
import { prng } from './prng.js';

const { onnx } = onnxProto;

export const TINY_MODEL_DIM = 32;

const SPECIAL = ['[PAD]', '[UNK]', '[CLS]', '[SEP]', '[MASK]'];

// Ordinary developer-conversation words; anything else falls back to characters.
const WORDS = `the a an and or not of to in on for with by from at as is are was were be been it this that
these those we you they he she i my your our their what which who how why when where do does did done
can could should would will shall may might must have has had make made use used using get got set run
ran add fix fixed bug bugs error errors fail failed failure test tests testing build builds deploy
release version update upgrade install config configuration file files path folder directory code
function class method type types module import export package dependency dependencies server client
database db sql sqlite postgres query index table schema migration migrations cache memory disk cpu
git commit push pull merge rebase branch main remote repo repository hook hooks session sessions
search vector vectors embedding embeddings model models token tokens api key keys secret password
auth authentication login user users request response http https json yaml toml csv log logs
timeout retry lock locks process thread worker queue event events stream streams async await promise
docker container kubernetes linux mac windows node npm typescript javascript python rust go java
react vue css html browser page button form state store redux component props hook performance slow
fast speed latency memory leak crash panic exception stack trace debug debugger breakpoint print
first second last next previous new old same different because so but if then else loop while until
after before again only also just still yet more less most least all any some none every each
good bad right wrong true false yes no null undefined empty value values number string array object
map list set dict date time day week month year today yesterday tomorrow morning night hour minute
machine laptop desktop server cloud network port socket host proxy firewall ssl tls certificate
window tab terminal shell bash zsh command commands script scripts flag flags option options argument
workaround solution problem issue issues decision decided approach idea plan design architecture
refactor rename delete remove create read write open close save load parse format encode decode
utf8 unicode japanese english text word words line lines character characters split join trim
payment invoice order customer product price cart checkout email notification message chat`
  .split(/\s+/)
  .filter((w) => w.length > 0);

function range(from: number, to: number): string[] {
  const out: string[] = [];
  for (let c = from; c <= to; c++) out.push(String.fromCodePoint(c));
  return out;
}

const ASCII_CHARS = [...range(0x61, 0x7a), ...range(0x30, 0x39)];
const PUNCT = '!"#$%&\'()*+,-./:;<=>?@[\\]^_`{|}~'.split('');
const HIRAGANA = range(0x3041, 0x3096);
const KATAKANA = [...range(0x30a1, 0x30fa), 'ー'];
// Common kanji of everyday and technical Japanese (a few hundred is plenty for tests).
const KANJI = `日本語英文字学生先生時間年月週今明後前午分上下左右中大小多少高安新古長短早
人子女男名前国会社員手足目口耳心体力気電話車駅道店家内外入出行来見聞読書話食飲買売作使
開閉始終起寝教習答問考知思言記録検索保存削除追加変更更新設定環境構成接続切断送受信通知
認証承認暗号鍵秘密情報管理者利用可能不要必要重要問題解決方法原因結果理由確認修正対応実装
設計仕様機能画面表示入力出力処理実行停止再起動失敗成功完了障害発生状態記憶思出検討議論決定
移行計画開発環境本番試験速度遅延高速低速容量数値文字列配列型関数変数定義宣言呼返値引数
最初最後次回前回昨日今日明日毎朝夜午後会議資料共有同期分散複製統合競合解消方針`
  .replace(/\s+/g, '')
  .split('');

export function buildVocab(): string[] {
  const seen = new Set<string>();
  const vocab: string[] = [];
  const add = (t: string): void => {
    if (!seen.has(t)) {
      seen.add(t);
      vocab.push(t);
    }
  };
  for (const t of SPECIAL) add(t);
  for (const t of PUNCT) add(t);
  for (const t of ASCII_CHARS) add(t);
  for (const t of ASCII_CHARS) add(`##${t}`);
  for (const t of WORDS) add(t);
  for (const t of [...HIRAGANA, ...KATAKANA, ...KANJI]) {
    add(t);
    add(`##${t}`);
  }
  return vocab;
}

export function buildWeights(vocab: string[], dim: number): Float32Array {
  const rand = prng(20260329);
  const w = new Float32Array(vocab.length * dim);
  for (let i = 0; i < vocab.length; i++) {
    // Special tokens contribute nothing, so [CLS]/[SEP] do not pull every text together.
    if (SPECIAL.includes(vocab[i] ?? '')) continue;
    for (let d = 0; d < dim; d++) w[i * dim + d] = rand() * 2 - 1;
  }
  return w;
}

function tokenizerJson(vocab: string[]): unknown {
  const ids: Record<string, number> = {};
  vocab.forEach((t, i) => (ids[t] = i));
  const special = (t: string) => ({
    id: ids[t],
    content: t,
    single_word: false,
    lstrip: false,
    rstrip: false,
    normalized: false,
    special: true,
  });
  return {
    version: '1.0',
    truncation: null,
    padding: null,
    added_tokens: SPECIAL.map(special),
    normalizer: {
      type: 'BertNormalizer',
      clean_text: true,
      handle_chinese_chars: true,
      strip_accents: null,
      lowercase: true,
    },
    pre_tokenizer: { type: 'BertPreTokenizer' },
    post_processor: {
      type: 'TemplateProcessing',
      single: [
        { SpecialToken: { id: '[CLS]', type_id: 0 } },
        { Sequence: { id: 'A', type_id: 0 } },
        { SpecialToken: { id: '[SEP]', type_id: 0 } },
      ],
      pair: [
        { SpecialToken: { id: '[CLS]', type_id: 0 } },
        { Sequence: { id: 'A', type_id: 0 } },
        { SpecialToken: { id: '[SEP]', type_id: 0 } },
        { Sequence: { id: 'B', type_id: 1 } },
        { SpecialToken: { id: '[SEP]', type_id: 1 } },
      ],
      special_tokens: {
        '[CLS]': { id: '[CLS]', ids: [ids['[CLS]']], tokens: ['[CLS]'] },
        '[SEP]': { id: '[SEP]', ids: [ids['[SEP]']], tokens: ['[SEP]'] },
      },
    },
    decoder: { type: 'WordPiece', prefix: '##', cleanup: true },
    model: {
      type: 'WordPiece',
      unk_token: '[UNK]',
      continuing_subword_prefix: '##',
      max_input_chars_per_word: 100,
      vocab: ids,
    },
  };
}

function onnxModel(vocabSize: number, dim: number, weights: Float32Array): Uint8Array {
  const T = onnx.TensorProto.DataType;
  const tensorType = (elemType: number, dims: Array<{ dimParam?: string; dimValue?: number }>) => ({
    tensorType: { elemType, shape: { dim: dims } },
  });
  const model = onnx.ModelProto.create({
    irVersion: 7,
    producerName: 'memory-engine test/tools/make-tiny-model',
    opsetImport: [{ domain: '', version: 13 }],
    graph: {
      name: 'tiny_static_embedding',
      node: [
        {
          opType: 'Gather',
          input: ['embeddings', 'input_ids'],
          output: ['last_hidden_state'],
          attribute: [{ name: 'axis', type: onnx.AttributeProto.AttributeType.INT, i: 0 }],
        },
      ],
      initializer: [
        {
          name: 'embeddings',
          dims: [vocabSize, dim],
          dataType: T.FLOAT,
          rawData: new Uint8Array(weights.buffer, weights.byteOffset, weights.byteLength),
        },
      ],
      input: [
        { name: 'input_ids', type: tensorType(T.INT64, [{ dimParam: 'batch' }, { dimParam: 'sequence' }]) },
      ],
      output: [
        {
          name: 'last_hidden_state',
          type: tensorType(T.FLOAT, [{ dimParam: 'batch' }, { dimParam: 'sequence' }, { dimValue: dim }]),
        },
      ],
    },
  });
  return onnx.ModelProto.encode(model).finish();
}

export function writeTinyModel(dir: string, dim = TINY_MODEL_DIM): void {
  const vocab = buildVocab();
  const weights = buildWeights(vocab, dim);
  mkdirSync(join(dir, 'onnx'), { recursive: true });
  const json = (v: unknown) => `${JSON.stringify(v, null, 1)}\n`;
  writeFileSync(
    join(dir, 'config.json'),
    json({
      model_type: 'bert',
      architectures: ['BertModel'],
      hidden_size: dim,
      vocab_size: vocab.length,
      max_position_embeddings: 512,
      num_attention_heads: 1,
      num_hidden_layers: 0,
    }),
  );
  writeFileSync(
    join(dir, 'tokenizer_config.json'),
    json({
      tokenizer_class: 'BertTokenizer',
      do_lower_case: true,
      model_max_length: 512,
      cls_token: '[CLS]',
      sep_token: '[SEP]',
      pad_token: '[PAD]',
      unk_token: '[UNK]',
      mask_token: '[MASK]',
    }),
  );
  writeFileSync(join(dir, 'tokenizer.json'), json(tokenizerJson(vocab)));
  writeFileSync(join(dir, 'onnx', 'model.onnx'), onnxModel(vocab.length, dim, weights));
}

const here = dirname(fileURLToPath(import.meta.url));
if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  // Compiled to dist/test/tools/: the fixture lives in the source tree.
  const target = resolve(here, '..', '..', '..', 'test', 'fixtures', 'tiny-model');
  writeTinyModel(target);
  process.stdout.write(`wrote ${target}\n`);
}
