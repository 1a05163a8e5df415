/**
 * Which files a memory talked about have changed since: the blob id recorded at capture
 * against the file's content now, in this machine's checkout of the same repository. Content
 * decides, not timestamps (a file rewritten with the same bytes is unchanged); a file that
 * cannot be compared (repository not checked out here, memory from before blobs were
 * recorded, file too large) is never claimed either way. node:fs only, no git process:
 * per-prompt recall runs it.
 */
import { openSync, readSync, closeSync, fstatSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { repoIdentity } from '../project/repository.js';
import { gitBlobId } from './git-files.js';
import type { MemoryRow, Store } from '../store/store.js';
import { fileKey } from '../store/file-index.js';

/** Files hashed per memory at most, and the largest file hashed (bytes): bounded work per hit. */
export const MAX_TRACKED_FILES = 20;
export const MAX_TRACKED_BYTES = 1 << 20;

/** One recorded file: as the memory's `files` holds it, its path in the repository, its blob (null: absent then). */
export interface FileBlob {
  file: string;
  path: string;
  blob: string | null;
}

export interface FileChange {
  /** The path as the memory records it. */
  file: string;
  /** Its path in the repository (what the text forms name). */
  path: string;
  state: 'changed' | 'deleted';
}

/**
 * Blob ids of files, with a stat cache: a file whose size, mtime and inode are unchanged is
 * not read again (in this process, and across processes through the cache's `file_hashes`
 * when a store is given and `persist` is on; `'if-free'`: kept only when the cache takes the
 * write at once, as the hooks do, which never wait on it).
 */
export class FileHasher {
  private readonly memo = new Map<string, { size: number; mtimeMs: number; ino: number; blob: string }>();
  constructor(
    private readonly store?: Store,
    private readonly persist: Persist = true,
  ) {}

  /** The blob id of a file; null when it does not exist; undefined when it cannot be read or is too large. */
  blobOf(path: string): string | null | undefined {
    let st;
    try {
      st = statSync(path);
    } catch (err) {
      return (err as NodeJS.ErrnoException).code === 'ENOENT' || (err as NodeJS.ErrnoException).code === 'ENOTDIR' ? null : undefined;
    }
    if (!st.isFile()) return st.isDirectory() ? null : undefined;
    if (st.size > MAX_TRACKED_BYTES) return undefined;
    const m = this.memo.get(path);
    if (m && m.size === st.size && m.mtimeMs === st.mtimeMs && m.ino === st.ino) return m.blob;
    let blob: string | undefined;
    try {
      blob = this.store?.fileStates.cachedBlob(path, st.size, st.mtimeMs, st.ino);
    } catch {
      /* a busy cache: hash it */
    }
    if (blob === undefined) {
      const content = readWhole(path);
      if (content === undefined) return undefined;
      blob = gitBlobId(content);
      if (this.store && this.persist) {
        try {
          if (this.persist === 'if-free') this.store.fileStates.rememberBlobIfFree(path, st.size, st.mtimeMs, st.ino, blob);
          else this.store.fileStates.rememberBlob(path, st.size, st.mtimeMs, st.ino, blob);
        } catch {
          /* a busy cache costs a re-hash next time, nothing else */
        }
      }
    }
    this.memo.set(path, { size: st.size, mtimeMs: st.mtimeMs, ino: st.ino, blob });
    return blob;
  }
}

function readWhole(path: string): Buffer | undefined {
  let fd: number | undefined;
  try {
    fd = openSync(path, 'r');
    const size = fstatSync(fd).size;
    if (size > MAX_TRACKED_BYTES) return undefined;
    const buf = Buffer.alloc(size);
    let pos = 0;
    while (pos < size) {
      const n = readSync(fd, buf, pos, size - pos, pos);
      if (n <= 0) break;
      pos += n;
    }
    return buf.subarray(0, pos);
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** `file_blobs` of a memory's unknown fields, when well formed. */
export function fileBlobsOf(extra: Record<string, unknown> | undefined): FileBlob[] | undefined {
  const v = extra?.file_blobs;
  if (!Array.isArray(v)) return undefined;
  const out: FileBlob[] = [];
  for (const e of v) {
    const o = e as Partial<FileBlob>;
    if (typeof o?.file === 'string' && typeof o.path === 'string' && (o.blob === null || typeof o.blob === 'string')) out.push({ file: o.file, path: o.path, blob: o.blob });
  }
  return out;
}

/**
 * Where a repository is checked out on this machine: the session's own checkout when it is
 * of that repository, else the newest folder a session of it was seen in that still is.
 */
export class CheckoutFinder {
  private readonly found = new Map<string, string | null>();
  private readonly identities = new Map<string, { key: string; top: string } | null>();
  constructor(
    private readonly store: Store,
    /** The folder the request comes from (a session's cwd): preferred when it is a checkout of the repository. */
    private readonly here?: string,
    /** This machine's name: the folders of its own memories are checkouts here. */
    private readonly machine?: string,
  ) {}

  private identity(dir: string): { key: string; top: string } | null {
    let id = this.identities.get(dir);
    if (id === undefined) {
      const r = repoIdentity(dir);
      id = r ? { key: r.key, top: r.top } : null;
      this.identities.set(dir, id);
    }
    return id;
  }

  rootOf(repo: string): string | undefined {
    let root = this.found.get(repo);
    if (root === undefined) {
      root = null;
      const candidates = [...(this.here ? [this.here] : []), ...safe(() => this.store.fileStates.checkoutCandidates(repo, this.machine), [])];
      for (const dir of candidates) {
        const id = this.identity(dir);
        if (id && id.key === repo) {
          root = id.top;
          break;
        }
      }
      this.found.set(repo, root);
    }
    return root ?? undefined;
  }
}

function safe<T>(fn: () => T, fallback: T): T {
  try {
    return fn();
  } catch {
    return fallback;
  }
}

export interface Staleness {
  finder: CheckoutFinder;
  hasher: FileHasher;
}

/** Whether blob ids hashed are kept in the cache: always, never, or when the cache takes the write at once. */
export type Persist = boolean | 'if-free';

export function staleness(store: Store, opts: { here?: string; machine?: string; persist?: Persist } = {}): Staleness {
  return { finder: new CheckoutFinder(store, opts.here, opts.machine), hasher: new FileHasher(store, opts.persist ?? true) };
}

/**
 * A recorded file's blob here, named as recorded or in the other Unicode form: a path a Mac
 * recorded decomposed (store/file-index.ts fileKey) is composed in a Linux checkout, and the
 * other way; missing in both: null.
 */
function blobInEitherForm(hasher: FileHasher, root: string, path: string): string | null | undefined {
  const first = hasher.blobOf(join(root, path));
  if (first !== null) return first;
  for (const other of new Set([path.normalize('NFC'), path.normalize('NFD')])) {
    if (other === path) continue;
    const blob = hasher.blobOf(join(root, other));
    if (blob !== null) return blob;
  }
  return null;
}

/**
 * The recorded files of a memory that changed or were deleted since it was made, compared in
 * this machine's checkout; undefined when nothing can be known. `only`: compare just these
 * paths in the repository (the others are not read).
 */
export function changedFiles(s: Staleness, row: Pick<MemoryRow, 'repo' | 'extra'>, only?: ReadonlySet<string>): FileChange[] | undefined {
  if (!row.repo || !row.extra) return undefined;
  let extra: Record<string, unknown>;
  try {
    extra = JSON.parse(row.extra) as Record<string, unknown>;
  } catch {
    return undefined;
  }
  const blobs = fileBlobsOf(extra);
  if (!blobs || blobs.length === 0) return undefined;
  const root = s.finder.rootOf(row.repo);
  if (!root) return undefined;
  const out: FileChange[] = [];
  let known = 0;
  const wanted = only && new Set([...only].map(fileKey));
  for (const b of only ? blobs : blobs.slice(0, MAX_TRACKED_FILES)) {
    if (b.path === '' || b.path.split('/').includes('..') || (wanted && !wanted.has(fileKey(b.path)))) continue;
    const now = blobInEitherForm(s.hasher, root, b.path);
    if (now === undefined) continue;
    known++;
    if (now === b.blob) continue;
    out.push({ file: b.file, path: b.path, state: now === null ? 'deleted' : 'changed' });
  }
  return known === 0 ? undefined : out;
}

/** One line for the text forms: "src/sse.ts changed since this memory", "… deleted since …". */
export function describeChanges(changes: FileChange[] | undefined, max = 3): string | undefined {
  if (!changes || changes.length === 0) return undefined;
  const part = (state: FileChange['state']) => {
    const files = changes.filter((c) => c.state === state).map((c) => c.path);
    return files.length === 0 ? undefined : { files, state };
  };
  const groups = [part('changed'), part('deleted')].filter((g) => g !== undefined);
  let shown = 0;
  const phrases: string[] = [];
  for (const g of groups) {
    const names = g.files.slice(0, Math.max(0, max - shown));
    shown += names.length;
    const more = g.files.length - names.length;
    if (names.length === 0) {
      phrases.push(`${g.files.length} more file(s) ${g.state}`);
      continue;
    }
    phrases.push(`${names.join(', ')}${more > 0 ? ` and ${more} more` : ''} ${g.state}`);
  }
  return `${phrases.join('; ')} since this memory`;
}

/** A hit with `changed_files` (and `files_note`, the line saying so) when its files can be compared here. */
export function withChanges<T extends object>(hit: T, s: Staleness, row: Pick<MemoryRow, 'repo' | 'extra'>): T & { changed_files?: string[]; files_note?: string } {
  const changes = changedFiles(s, row);
  if (!changes) return hit;
  const note = describeChanges(changes);
  return { ...hit, changed_files: changes.map((c) => c.file), ...(note ? { files_note: note } : {}) };
}

/** The line for a memory shown as text (injection, recall), when a recorded file changed. */
export function changeNote(s: Staleness, row: Pick<MemoryRow, 'repo' | 'extra'>): string | undefined {
  return describeChanges(changedFiles(s, row));
}
