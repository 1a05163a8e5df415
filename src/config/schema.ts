/**
 * Every configuration key: its type, default and one line of documentation.
 * `config.toml` at the repository root mirrors this table for users.
 */
import type { SettingsProblem } from './shared.js';

export type KeyType = 'string' | 'integer' | 'number' | 'boolean' | 'string[]';

export interface KeySpec {
  type: KeyType;
  /** `undefined` means "derived at run time" (see the doc line). */
  default: string | number | boolean | string[] | undefined;
  doc: string;
  /** Paths are resolved against the folder of the file that sets them (`~` = home). */
  path?: boolean;
  /** A project's or machine's name: file-name safe, or a name in another script (stored in IDNA's ASCII form, project/label.ts). */
  name?: boolean;
  /** Secret formats (privacy/formats.ts): each one checked. */
  secretFormats?: boolean;
  min?: number;
}

export const SCHEMA = {
  general: {
    machine_name: { type: 'string', default: undefined, name: true, doc: "Name of this machine in file names and hits (default: sanitized hostname plus a short random suffix, fixed at first use in config.local.toml). Letters, digits, '.', '_' and '-', or a name in another script (会社), shown as written." },
    project: { type: 'string', default: undefined, name: true, doc: "Project name for captured sessions (default: basename of the session cwd's git top level). Letters, digits, '.', '_' and '-', or a name in another script (決済), shown as written." },
    export_dir: { type: 'string', default: 'export', path: true, doc: 'Folder of the JSONL memories (the source of truth; committed to git).' },
    db_path: { type: 'string', default: '.cache/memory.db', path: true, doc: 'SQLite cache, rebuilt from JSONL whenever needed.' },
    claude_projects_dir: { type: 'string', default: '~/.claude/projects', path: true, doc: 'Where Claude Code keeps transcripts.' },
  },
  embedding: {
    model: { type: 'string', default: 'Xenova/multilingual-e5-small', doc: 'Hub model id, or a local folder with config.json, tokenizer.json and onnx/.' },
    dtype: { type: 'string', default: 'q8', doc: 'ONNX weights variant: fp32, fp16, q8, int8, uint8, q4, bnb4, q4f16.' },
    dim: { type: 'integer', default: 0, min: 0, doc: 'Vector size; 0 = learn it from the model or the records.' },
    query_prefix: { type: 'string', default: 'query: ', doc: 'Prepended to search queries before embedding (e5 convention).' },
    document_prefix: { type: 'string', default: 'passage: ', doc: 'Prepended to memories before embedding (e5 convention).' },
    local_model_path: { type: 'string', default: '', path: true, doc: 'Folder holding downloaded models (default: the user cache folder).' },
    allow_remote: { type: 'boolean', default: true, doc: 'Allow downloading the model from the hub on first use.' },
    remote_host: { type: 'string', default: '', doc: 'Where models are downloaded from: a Hugging Face hub mirror (https://host/); empty = the hub itself.' },
    batch_size: { type: 'integer', default: 16, min: 1, doc: 'Texts embedded per model call.' },
  },
  search: {
    top_k: { type: 'integer', default: 5, min: 1, doc: 'Hits returned by search.' },
    half_life_days: { type: 'number', default: 30, min: 0, doc: 'Half-life of the recency prior: a memory this many days old gets half the boost of a new one; 0 ranks by relevance alone.' },
    recency_weight: { type: 'number', default: 0.1, min: 0, doc: 'How much a brand-new memory can gain over an old one: relevance × (1 + weight × 0.5^(age / half-life)).' },
    rrf_k: { type: 'number', default: 60, min: 0, doc: 'Reciprocal-rank-fusion constant.' },
  },
  capture: {
    min_question_chars: { type: 'integer', default: 10, min: 1, doc: 'Shorter prompts continue the previous turn.' },
    max_question_chars: { type: 'integer', default: 2000, min: 10, doc: 'Longer prompts are cut (marked).' },
    min_answer_chars: { type: 'integer', default: 10, min: 0, doc: 'Turns with a shorter answer are not kept.' },
    max_answer_chars: { type: 'integer', default: 4000, min: 100, doc: 'Longer answers keep their conclusion and are cut (marked).' },
  },
  inject: {
    recent: { type: 'integer', default: 5, min: 0, doc: 'Memories injected at session start (current project, most recent first).' },
    answer_chars: { type: 'integer', default: 600, min: 50, doc: 'Answer characters per injected memory.' },
  },
  recall: {
    enabled: { type: 'boolean', default: true, doc: 'Before every prompt (UserPromptSubmit), give the agent the few memories clearly relevant to it; false turns it off without uninstalling.' },
    max_items: { type: 'integer', default: 3, min: 0, doc: 'Memories recalled per prompt at most.' },
    max_chars: { type: 'integer', default: 2000, min: 200, doc: 'Characters of recalled text per prompt at most.' },
    min_coverage: { type: 'number', default: 0.5, min: 0, doc: 'Relevance floor: the share of the prompt\'s terms (weighted by rarity) a memory must hold to be recalled.' },
    min_rare_words: { type: 'number', default: 2.25, min: 0, doc: 'Relevance floor: how many rare words\' worth of the prompt a memory must hold (a word found in one memory counts 1, a common word a fraction).' },
    min_prompt_chars: { type: 'integer', default: 12, min: 1, doc: 'Shorter prompts ("yes", "go on", はい) recall nothing; a Japanese or Chinese character counts two.' },
    files: { type: 'boolean', default: true, doc: 'When the agent reads or edits a file, give it the earlier sessions on that file (the tool hook); false turns it off without uninstalling.' },
    file_max_items: { type: 'integer', default: 2, min: 0, doc: 'Memories given per file touched at most (each once per session).' },
    file_max_chars: { type: 'integer', default: 1200, min: 200, doc: 'Characters given per file touched at most.' },
  },
  privacy: {
    exclude_projects: { type: 'string[]', default: [], doc: 'Glob patterns on project name or cwd never captured nor injected.' },
    redact: { type: 'boolean', default: true, doc: 'Replace secrets (API keys, tokens, passwords) before anything is written.' },
    secret_formats: { type: 'string[]', default: [], secretFormats: true, doc: 'Your own secret formats, redacted as [REDACTED:custom]: literal text with one * (a run of letters, digits and _-.+/=~) and any ? (one of them), e.g. ["acme_live_*", "CORP-????-????"].' },
  },
  sync: {
    remote_url: { type: 'string', default: '', doc: 'URL of the private git repository memories go to (set by `memory init --remote`); empty = commit locally, never push.' },
    remote: { type: 'string', default: 'memory', doc: 'Name of the git remote that points at remote_url (never origin unless you say so).' },
    push: { type: 'boolean', default: true, doc: 'Push after each commit.' },
    pull_timeout_ms: { type: 'integer', default: 8000, min: 100, doc: 'Upper bound for git pull and push at session start.' },
    network_silence_s: { type: 'integer', default: 60, min: 1, doc: 'A git fetch or push that hears nothing from the remote this long is ended (with ssh and its helpers) and retried later.' },
    commit_interval_s: { type: 'integer', default: 300, min: 0, doc: 'Captures after each turn are committed and pushed at most this often, counted from the last commit of memories (session end and commands commit at once).' },
    repack_loose_kb: { type: 'integer', default: 4096, min: 0, doc: 'Repack the repository in the background once loose git objects pass this size (0 = never).' },
    my_git_settings: { type: 'boolean', default: false, doc: "Memory commits, rebases and pushes with your own git signing (commit.gpgsign) and hooks (core.hooksPath, .git/hooks); off, they run unsigned and without hooks, so neither can stop them." },
  },
} as const satisfies Record<string, Record<string, KeySpec>>;

export type Schema = typeof SCHEMA;
export type SectionName = keyof Schema;

type ValueOf<S extends KeySpec> = S['type'] extends 'string'
  ? string
  : S['type'] extends 'boolean'
    ? boolean
    : S['type'] extends 'string[]'
      ? string[]
      : number;

/**
 * A team this person belongs to (`[[team]]` in the memory home's config.toml, shared by all of
 * their machines): its remote, their handle there, the projects they share with it, how long
 * memories wait in the outbox before they go (team/README in TEAM.md; the team-memory issue).
 */
export interface TeamConfig {
  name: string;
  remote: string;
  handle: string;
  /** The team's project names this person shares (their own key: the team's team.toml is the other). */
  projects: string[];
  review_delay_h: number;
}

/** The default review window: a day to look at what would go before it goes. */
export const DEFAULT_REVIEW_DELAY_H = 24;

/** The validated, fully resolved configuration (paths absolute). */
export type Config = {
  [Sec in SectionName]: { [K in keyof Schema[Sec]]: Schema[Sec][K] extends KeySpec ? ValueOf<Schema[Sec][K]> : never };
} & {
  /** The teams this person belongs to (`[[team]]`), in the order written. */
  teams: TeamConfig[];
  /** Where the values came from, for `status` and error messages. */
  sources: string[];
  /** Folder of the main config file: relative paths resolve against it. */
  baseDir: string;
  /** The configuration's shared layer, `config.toml` (it may not exist); `config.local.toml` is beside it. */
  file: string;
  /** Named by `--config` / MEMORY_CONFIG rather than found in the memory home. */
  explicit: boolean;
  /** What was named when it was the machine's layer (`config.local.toml`): an earlier version's hooks did (agents/heal.ts). */
  named?: string;
  /** The shared `config.toml` does not parse or validate: its last good committed version applies (config/shared.ts). */
  settingsProblem?: SettingsProblem;
  /** Set when this is a memory home's config: the folder is the memory repository, created on first use. */
  home?: string;
  /** A checkout of the tool whose memories still wait to move into the home (the upgrade, home/upgrade.ts). */
  legacy?: string;
};

export const FILE_NAME_SAFE = /^[A-Za-z0-9._-]+$/;
