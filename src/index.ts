/** Library API: the same pieces the CLI is built from, for scripts and other agents. */
export { loadConfig, type LoadOptions } from './config/load.js';
export type { Config } from './config/schema.js';
export { turnToRecord, memoryId, type Turn, type CaptureLimits } from './capture/turn.js';
export { parseTranscript } from './agents/claude-code/transcript.js';
export { parseCodexRollout } from './agents/codex/rollout.js';
export { decodeLine, encodeEntry, resolveEntries, liveRecords, monthOf } from './export/jsonl.js';
export { readEntries, readAllEntries } from './export/read.js';
export { appendEntries } from './export/files.js';
export { openCache, type CacheOptions, type RebuildResult } from './store/cache.js';
export { search, type SearchOptions, type SearchResult } from './search/search.js';
export { buildKeywordQuery } from './search/query.js';
export { fuseRanks, recencyBoost } from './search/fuse.js';
export { loadEmbedder, type Embedder, type EmbedderConfig } from './embed/embedder.js';
export { cleanText, redactSecrets } from './privacy/redact.js';
export type { MemoryRecord, Tombstone, ExportEntry, SearchHit, SearchFilters, SearchMode } from './types.js';
