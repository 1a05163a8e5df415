/**
 * What breaks around memory, told where the person is: git missing or unusable, a model folder
 * that does not exist or cannot load, a memory home that cannot be used, an export folder
 * inside a project repository, shared settings that do not parse. Each is a notice with a kind
 * and a path — the cause — shown by the session start as a `systemMessage` at most once a day
 * per cause (another wording of the same cause is the same cause), checked by `doctor`, and
 * raised by the CLI as a HealthError (exit 1).
 */
import { describeSettingsProblem } from '../../config/shared.js';
import type { Config } from '../../config/schema.js';
import { workDirFor } from '../../config/paths.js';
import { localModelProblem, modelAlternatives, modelIsCached, type EmbedderConfig } from '../../embed/embedder.js';
import { readFetchState } from './model-fetch.js';
import { causeKey, HealthError, type HealthKind } from '../../errors.js';
import { gitProgram } from '../../sync/process.js';
import { firstTodayFor } from './told.js';

export interface HealthNotice {
  kind: HealthKind;
  /** What it concerns: with the kind, the cause told once a day. */
  path: string;
  message: string;
  hint?: string;
}

/** git is needed to commit and sync; without it, captures are kept in the export folder, uncommitted. */
export function gitNotice(config: Pick<Config, 'general'>): HealthNotice | undefined {
  const g = gitProgram();
  if (g.ok) return undefined;
  return {
    kind: 'git',
    path: 'git',
    message: `${g.detail}: memories are kept in ${config.general.export_dir} but not committed or synced`,
    hint: 'install git (or put it on the PATH the agent runs its hooks with); they are committed at the next session start after that',
  };
}

/** A model given as a local folder that is missing or incomplete (hub models are fetched on first use). */
export function modelNotice(config: Pick<Config, 'embedding'>): HealthNotice | undefined {
  const problem = localModelProblem({ model: config.embedding.model, dtype: config.embedding.dtype });
  if (!problem) return undefined;
  return { kind: 'model', path: config.embedding.model, message: `${problem}: memories are found by keywords only and kept without vectors`, hint: 'fix [embedding] model in config.toml or config.local.toml (a folder with config.json, tokenizer.json and onnx/), or remove it to use the default model' };
}

/** The shared config.toml does not parse: its last good version applies, and it does not travel. */
export function settingsNotice(config: Pick<Config, 'settingsProblem'>): HealthNotice | undefined {
  const p = config.settingsProblem;
  if (!p) return undefined;
  return { kind: 'settings', path: p.file, message: describeSettingsProblem(p), hint: 'fix the file; `memory doctor` shows what is wrong' };
}

export function noticeOf(err: HealthError): HealthNotice {
  return { kind: err.kind, path: err.path, message: err.message, ...(err.hint ? { hint: err.hint } : {}) };
}

/** The checks that need nothing but the configuration: what session start and doctor both ask. */
export function healthNotices(config: Pick<Config, 'general' | 'embedding' | 'settingsProblem'>): HealthNotice[] {
  return [gitNotice(config), modelNotice(config), settingsNotice(config)].filter((n): n is HealthNotice => n !== undefined);
}

/** One clean sentence for the person. */
export function describeNotice(n: HealthNotice): string {
  return `memory: ${n.message}${n.hint ? ` — ${n.hint}` : ''}.`;
}

/** The notices not told today yet (each recorded as told now), as sentences. */
export function tellOnceADay(baseDir: string, notices: HealthNotice[], now: Date): string[] {
  return notices.filter((n) => firstTodayFor(workDirFor(baseDir), causeKey(n.kind, n.path), now)).map(describeNotice);
}

/**
 * What to do about memories waiting for a vector, naming only what can work now: rebuild when
 * the model is here; otherwise where it stands (downloading, failed, a folder to fix) — never
 * `rebuild --with-model` while the model cannot be had.
 */
export function pendingAdvice(baseDir: string, cfg: EmbedderConfig): string {
  const local = localModelProblem(cfg);
  if (local) return `${local}; fix [embedding] model, then \`memory rebuild --with-model\` embeds them`;
  if (modelIsCached(cfg)) return 'run `memory rebuild --with-model`';
  const state = readFetchState(baseDir);
  if (state?.status === 'running') return `they are embedded once the model download from ${state.host} is done`;
  if (state?.status === 'failed' || !cfg.allowRemote) return `the embedding model is not on this machine${modelAlternatives(cfg)}`;
  return 'the next session start downloads the embedding model (or `memory model pull` now), and later captures embed them';
}
