// memory-engine viewer. Plain JavaScript, no build step. Every piece of memory text is put
// into the page as text (textContent, text nodes): conversations are full of <script>,
// <img onerror=…>, markdown and ANSI codes, and none of it may run or render as markup.
// Checked by tsc (tsconfig.ui.json: checkJs with these JSDoc types).
'use strict';

/**
 * @typedef {{ id: string, timestamp: string, machine: string, project?: string | null, source: string, question: string, answer: string, files_note?: string, recorded_as?: string, author?: string, team?: string }} Hit
 * @typedef {{ hits: Hit[], more: boolean, mode: string, model?: string, model_problem?: string, highlight?: string[], period_note?: string }} SearchPage
 * @typedef {{ id: string, timestamp: string, question: string }} Neighbour
 * @typedef {Hit & { updated_at?: string, git_branch?: string, cwd?: string, session_id?: string, files: string[], repo?: string | null, repo_files?: string[], embedded: boolean }} Memory
 * @typedef {{ memory: Memory, before: Neighbour[], after: Neighbour[] }} MemoryPage
 * @typedef {{ op: string, status: string, message: string }} SyncError
 * @typedef {{ memory_remote: { name: string, url: string } | null, last_push: string | null, last_pull: string | null, last_error: SyncError | null }} SyncFacts
 * @typedef {{ facets: { projects: string[], machines: string[], sources: string[] }, perMachineMonth: Array<{ month: string, machine: string, n: number }>, sync: SyncFacts, redactions: Record<string, number>, records: number, tombstones: number, projects: number, machines: string[], machine: string, oldest?: string, newest?: string, model: string, pending: number, excluded_sessions: number, unscrubbed: number | null }} Overview
 * @typedef {{ q: string, filters: Record<string, string>, mode: string }} Shown
 */

/**
 * An element of the page by its id, as the kind the caller knows it is.
 * @template {HTMLElement} [T=HTMLElement]
 * @param {string} id
 * @returns {T}
 */
const $ = (id) => /** @type {T} */ (document.getElementById(id));
const PAGE = 20;
// `shown`: the query, filters and ranking mode of the list on screen — what "Forget all
// matching…" forgets, never a search typed since that has not come back yet.
// `file`: the file filter, set from a memory's detail (a path inside its repository).
/** @type {{ q: string, filters: Record<string, string>, file: { repo: string, path: string } | null, offset: number, more: boolean, loading: boolean, selected: Set<string>, highlight: string[], openId: string | null, shown: Shown | null, inFlight: AbortController | null }} */
const state = { q: '', filters: {}, file: null, offset: 0, more: false, loading: false, selected: new Set(), highlight: [], openId: null, shown: null, inFlight: null };

/**
 * An element with properties (`class`, `text` as text content, `data-*` attributes, any other
 * as a property) and children.
 * @template {keyof HTMLElementTagNameMap} K
 * @param {K} tag
 * @param {Record<string, unknown>} [props]
 * @param {Array<Node | string>} [children]
 * @returns {HTMLElementTagNameMap[K]}
 */
function el(tag, props = {}, children = []) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(props)) {
    if (k === 'class') e.className = String(v);
    else if (k === 'text') e.textContent = v === null || v === undefined ? '' : String(v);
    else if (k.startsWith('data-')) e.setAttribute(k, String(v));
    else /** @type {Record<string, unknown>} */ (/** @type {unknown} */ (e))[k] = v;
  }
  for (const c of children) e.append(c);
  return e;
}

/**
 * Text with the query's words marked: built from text nodes and <mark> elements only.
 * @param {string} text
 * @param {string[]} terms
 * @returns {DocumentFragment}
 */
function marked(text, terms) {
  const frag = document.createDocumentFragment();
  const words = terms.filter((t) => t.length > 0).map((t) => t.toLowerCase());
  if (words.length === 0) {
    frag.append(document.createTextNode(text));
    return frag;
  }
  const lower = text.toLowerCase();
  let i = 0;
  while (i < text.length) {
    let best = -1;
    let len = 0;
    for (const w of words) {
      const at = lower.indexOf(w, i);
      if (at >= 0 && (best < 0 || at < best || (at === best && w.length > len))) {
        best = at;
        len = w.length;
      }
    }
    if (best < 0) {
      frag.append(document.createTextNode(text.slice(i)));
      break;
    }
    if (best > i) frag.append(document.createTextNode(text.slice(i, best)));
    frag.append(el('mark', { text: text.slice(best, best + len) }));
    i = best + len;
  }
  return frag;
}

/**
 * @param {string} path
 * @param {unknown} [body] a POST's JSON body
 * @param {AbortSignal} [signal]
 * @returns {Promise<any>}
 */
async function api(path, body, signal) {
  const res = await fetch(path, body === undefined ? { credentials: 'same-origin', signal } : {
    method: 'POST', credentials: 'same-origin', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body), signal,
  });
  /** @type {any} */
  const data = await res.json().catch(() => ({ error: `${res.status} ${res.statusText}` }));
  if (!res.ok) throw new Error(data.error || `${res.status}`);
  return data;
}

/** @type {ReturnType<typeof setTimeout> | undefined} */
let toastTimer;

/** @param {string} text */
function toast(text) {
  const t = $('toast');
  t.textContent = text;
  t.hidden = false;
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => (t.hidden = true), 4000);
}

/** @returns {Record<string, string>} */
function readFilters() {
  /** @type {Record<string, string>} */
  const f = {};
  for (const k of ['project', 'machine', 'source', 'since', 'until']) {
    const v = /** @type {HTMLInputElement | HTMLSelectElement} */ ($(`f-${k}`)).value;
    if (v) f[k] = v;
  }
  if (state.file) {
    f.repo = state.file.repo;
    f.file = state.file.path;
  }
  return f;
}

/**
 * The file filter: the memories that recorded this file of this repository, or a file under this
 * folder (a path ending in /) (null: none).
 * @param {{ repo: string, path: string } | null} file
 */
function filterByFile(file) {
  state.file = file;
  const chip = $('f-file');
  chip.hidden = !file;
  $('f-file-kind').textContent = file && file.path.endsWith('/') ? 'Folder' : 'File';
  $('f-file-path').textContent = file ? file.path : '';
  chip.title = file ? `${file.path} in ${file.repo}` : '';
  search();
}

/**
 * What the list holds, by the file filter: "of src/money.ts", "under src/pay/".
 * @param {string} path
 */
function ofFile(path) {
  return path.endsWith('/') ? `under ${path}` : `of ${path}`;
}

/** @param {Record<string, string>} [extra] */
function params(extra = {}) {
  const p = new URLSearchParams({ ...state.filters, ...extra });
  if (state.q) p.set('q', state.q);
  return p.toString();
}

const pad2 = (/** @type {number} */ n) => String(n).padStart(2, '0');

/**
 * A moment in the person's own calendar (the page runs on their machine): the day, or the day
 * and minute. Records keep UTC; a memory of 08:00 in Tokyo is that day's, not the day before.
 * @param {string | null | undefined} iso
 * @param {boolean} [minute]
 */
function localTime(iso, minute = false) {
  const d = new Date(iso || '');
  if (Number.isNaN(d.getTime())) return (iso || '').slice(0, minute ? 16 : 10);
  const dayText = `${d.getFullYear()}-${pad2(d.getMonth() + 1)}-${pad2(d.getDate())}`;
  return minute ? `${dayText} ${pad2(d.getHours())}:${pad2(d.getMinutes())}` : dayText;
}

/** @param {string | null | undefined} iso */
const day = (iso) => localTime(iso);

/**
 * @param {Hit} m
 * @returns {HTMLLIElement}
 */
function itemView(m) {
  const box = el('input', { type: 'checkbox', 'data-testid': 'memory-select', title: 'select', checked: state.selected.has(m.id) });
  box.setAttribute('aria-label', 'select this memory');
  box.addEventListener('click', (e) => e.stopPropagation());
  box.addEventListener('change', () => {
    if (box.checked) state.selected.add(m.id);
    else state.selected.delete(m.id);
    syncSelection();
  });
  const meta = el('div', { class: 'meta' }, [
    el('span', { text: day(m.timestamp) }),
    // A teammate's memory: whose, and through which team.
    ...(m.author ? [el('span', { class: 'tag team', 'data-testid': 'memory-author', text: `${m.author} · team ${m.team ?? '?'}` })] : []),
    el('span', { class: 'tag', text: m.machine }),
    el('span', { class: 'tag', text: m.project ?? '-' }),
    el('span', { class: 'tag', text: m.source }),
  ]);
  const q = el('div', { class: 'q' });
  q.append(marked(m.question, state.highlight));
  const a = el('div', { class: 'a' });
  a.append(marked(m.answer, state.highlight));
  /** @type {HTMLElement[]} */
  const parts = [box, meta];
  if (m.recorded_as) parts.push(el('div', { class: 'files-note', 'data-testid': 'recorded-as', text: `recorded as ${m.recorded_as}, renamed since` }));
  if (m.files_note) parts.push(el('div', { class: 'files-note', 'data-testid': 'files-note', text: m.files_note }));
  parts.push(q, a);
  const li = el('li', { class: `item${state.openId === m.id ? ' open' : ''}`, 'data-testid': 'memory-item', 'data-id': m.id, tabIndex: 0 }, parts);
  li.addEventListener('click', () => openMemory(m.id));
  li.addEventListener('keydown', (e) => {
    if (e.key === 'Enter') openMemory(m.id);
  });
  return li;
}

function syncSelection() {
  const n = state.selected.size;
  const b = /** @type {HTMLButtonElement} */ ($('forget-selected'));
  b.disabled = n === 0;
  b.textContent = n === 0 ? 'Forget selected' : `Forget ${n} selected`;
}

/** @param {boolean} reset */
async function load(reset) {
  // A new search cancels the one in flight; "more" waits for the page it extends.
  if (reset) state.inFlight?.abort();
  else if (state.loading) return;
  const controller = new AbortController();
  state.inFlight = controller;
  state.loading = true;
  const asked = { q: state.q, filters: { ...state.filters } };
  try {
    /** @type {SearchPage} */
    const data = await api(`/api/search?${params({ offset: reset ? '0' : String(state.offset), limit: String(PAGE) })}`, undefined, controller.signal);
    if (reset) {
      state.offset = 0;
      $('list').replaceChildren();
      state.shown = { ...asked, mode: data.mode };
    }
    state.highlight = data.highlight || [];
    const list = $('list');
    for (const m of data.hits) list.append(itemView(m));
    state.offset += data.hits.length;
    state.more = data.more;
    $('more').hidden = !data.more;
    const how = data.mode === 'browse' ? 'newest first' : data.mode === 'hybrid' ? 'by meaning and keywords' : data.model === 'loading' ? 'by keywords (the model is loading)' : data.model === 'unavailable' ? `by keywords (no embedding model${data.model_problem ? `: ${data.model_problem}` : ''})` : 'by keywords';
    // Time words alone list the period's memories newest first: the period's note says so, and the order is not said twice.
    const order = data.mode === 'browse' && data.period_note ? '' : `, ${how}`;
    const summary = list.children.length === 0 ? (state.q ? 'No matching memories.' : asked.filters.file ? `No memories ${ofFile(asked.filters.file)}.` : 'No memories yet.') : `${list.children.length}${data.more ? '+' : ''} ${list.children.length === 1 && !data.more ? 'memory' : 'memories'}${asked.filters.file ? ` ${ofFile(asked.filters.file)}` : ''}${order}`;
    // A time the words named: that period's memories first, or none of them on this (and how to list them), as the CLI says.
    $('summary').textContent = data.period_note ? `${summary} — ${data.period_note}` : summary;
  } catch (err) {
    const e = /** @type {Error} */ (err);
    if (e.name !== 'AbortError') toast(`Search failed: ${e.message}`);
  } finally {
    if (state.inFlight === controller) {
      state.loading = false;
      state.inFlight = null;
    }
  }
}

/**
 * @param {string} label
 * @param {string | null | undefined} value
 */
function row(label, value) {
  return [el('dt', { text: label }), el('dd', { text: value ?? '-' })];
}

/** @param {string} id */
async function openMemory(id) {
  state.openId = id;
  for (const li of /** @type {HTMLCollectionOf<HTMLElement>} */ ($('list').children)) li.classList.toggle('open', li.dataset.id === id);
  const d = $('detail');
  try {
    /** @type {MemoryPage} */
    const data = await api(`/api/memory/${encodeURIComponent(id)}`);
    const m = data.memory;
    const neigh = el('ol', { class: 'neigh' });
    for (const n of data.before) neigh.append(neighbour(n));
    neigh.append(el('li', { class: 'self', text: `▶ ${m.question.slice(0, 140)}` }));
    for (const n of data.after) neigh.append(neighbour(n));
    const forget = el('button', { type: 'button', class: 'danger', text: 'Forget this memory' });
    forget.addEventListener('click', () => confirmForget([m.id]));
    d.replaceChildren(
      el('h2', { text: `${day(m.timestamp)} · ${m.machine} · ${m.project ?? '-'}` }),
      el('dl', {}, [
        ...row('id', m.id),
        ...(m.author ? row('author', `${m.author} (team ${m.team ?? '?'}): someone else's session`) : []),
        ...row('source', m.source),
        ...row('captured', m.timestamp ? `${localTime(m.timestamp, true)} (${m.timestamp})` : undefined),
        ...row('updated', m.updated_at),
        ...row('machine', m.machine),
        ...row('branch', m.git_branch),
        ...row('folder', m.cwd),
        ...row('session', m.session_id),
        ...row('files', m.files.length ? m.files.join('\n') : null),
        ...(m.repo && m.repo_files && m.repo_files.length > 0 ? [el('dt', { text: 'memories of' }), el('dd', {}, m.repo_files.map((path) => fileLink(/** @type {string} */ (m.repo), path)))] : []),
        ...(m.files_note ? row('since', m.files_note) : []),
        ...row('embedded', m.embedded ? 'yes' : 'not yet'),
      ]),
      el('div', { class: 'label', text: 'Question' }),
      el('p', { class: 'body', text: m.question }),
      el('div', { class: 'label', text: 'Answer' }),
      el('p', { class: 'body', text: m.answer }),
      el('div', { class: 'label', text: 'In the same session' }),
      neigh,
      el('p', {}, [forget]),
    );
    d.hidden = false;
  } catch (err) {
    toast(`Cannot open it: ${/** @type {Error} */ (err).message}`);
  }
}

/**
 * A file of a repository as a path to click: its name lists the memories of the file, each
 * folder before it (src/, pay/) the memories of everything under that folder.
 * @param {string} repo
 * @param {string} path
 */
function fileLink(repo, path) {
  const parts = path.split('/');
  const row = el('span', { class: 'file-path', 'data-testid': 'file-path' });
  parts.slice(0, -1).forEach((part, i) => {
    const folder = `${parts.slice(0, i + 1).join('/')}/`;
    const b = el('button', { type: 'button', class: 'folder-link', 'data-testid': 'folder-link', text: `${part}/`, title: `every memory of a file under ${folder} (${repo})` });
    b.addEventListener('click', () => filterByFile({ repo, path: folder }));
    row.append(b);
  });
  const b = el('button', { type: 'button', class: 'file-link', 'data-testid': 'file-link', text: parts[parts.length - 1], title: `every memory that recorded ${path} (${repo})` });
  b.addEventListener('click', () => filterByFile({ repo, path }));
  row.append(b);
  return row;
}

/** @param {Neighbour} n */
function neighbour(n) {
  const li = el('li', { text: `${localTime(n.timestamp, true)} — ${n.question.slice(0, 140)}` });
  li.addEventListener('click', () => openMemory(n.id));
  return li;
}

/** @type {string[]} */
let pending = [];
/**
 * @param {string[]} ids
 * @param {string} [what]
 */
function confirmForget(ids, what = '') {
  if (ids.length === 0) return;
  pending = ids;
  $('confirm-text').textContent = `${what}Forget ${ids.length} ${ids.length === 1 ? 'memory' : 'memories'} on every machine? They disappear from search here now and from your other machines at their next session start. This cannot be undone from here.`;
  /** @type {HTMLDialogElement} */ ($('confirm')).showModal();
}

async function doForget() {
  const ids = pending;
  pending = [];
  /** @type {HTMLDialogElement} */ ($('confirm')).close();
  try {
    /** @type {{ forgotten: string[], committed: boolean }} */
    const res = await api('/api/forget', { ids });
    for (const id of res.forgotten) {
      state.selected.delete(id);
      document.querySelector(`[data-testid="memory-item"][data-id="${CSS.escape(id)}"]`)?.remove();
      if (state.openId === id) {
        $('detail').hidden = true;
        state.openId = null;
      }
    }
    syncSelection();
    toast(`Forgot ${res.forgotten.length} ${res.forgotten.length === 1 ? 'memory' : 'memories'}${res.committed ? ' (committed)' : ''}.`);
    loadOverview();
  } catch (err) {
    toast(`Nothing was forgotten: ${/** @type {Error} */ (err).message}`);
  }
}

async function forgetMatching() {
  // Exactly the list on screen: its words, filters and ranking, every page of it.
  const shown = state.shown;
  if (!shown) return;
  try {
    /** @type {{ count: number, ids: string[], everything: boolean, capped: boolean }} */
    const res = await api('/api/match', { q: shown.q, ...shown.filters, mode: shown.mode });
    if (res.count === 0) {
      toast('Nothing matches.');
      return;
    }
    const scope = Object.entries(shown.filters).map(([k, v]) => `${k === 'file' && v.endsWith('/') ? 'folder' : k} ${v}`).join(', ');
    const what = res.everything
      ? `No search words: this is every memory${scope ? ` under the filters (${scope})` : ', with no filter at all'}. `
      : `Everything the list holds for "${shown.q}"${scope ? ` (${scope})` : ''}${res.capped ? `, as far as it goes (${res.count})` : ''}. `;
    confirmForget(res.ids, what);
  } catch (err) {
    toast(/** @type {Error} */ (err).message);
  }
}

/**
 * @param {string} id
 * @param {string[]} values
 */
function fillSelect(id, values) {
  const s = /** @type {HTMLSelectElement} */ ($(id));
  const keep = s.value;
  s.replaceChildren(el('option', { value: '', text: 'all' }), ...values.map((v) => el('option', { value: v, text: v })));
  s.value = values.includes(keep) ? keep : '';
}

async function loadOverview() {
  try {
    /** @type {Overview} */
    const o = await api('/api/overview');
    fillSelect('f-project', o.facets.projects);
    fillSelect('f-machine', o.facets.machines);
    fillSelect('f-source', o.facets.sources);
    const t = el('table');
    t.append(el('tr', {}, [el('th', { text: 'month' }), el('th', { text: 'machine' }), el('th', { text: 'memories' })]));
    for (const r of o.perMachineMonth.slice(0, 36)) t.append(el('tr', {}, [el('td', { text: r.month }), el('td', { text: r.machine }), el('td', { class: 'n', text: String(r.n) })]));
    const s = o.sync;
    const failing = s.last_error;
    const redactions = Object.entries(o.redactions).map(([k, n]) => `${n} ${k}`).join(', ') || 'none';
    $('overview').replaceChildren(
      el('h2', { text: 'Overview' }),
      el('dl', {}, [
        ...row('memories', `${o.records} live, ${o.tombstones} forgotten, ${o.projects} projects`),
        ...row('machines', `${o.machines.join(', ') || '-'} (this one: ${o.machine})`),
        ...row('span', `${day(o.oldest)} … ${day(o.newest)}`),
        ...row('embeddings', `${o.model}; ${o.pending} waiting`),
        ...row('withheld', `redactions: ${redactions}; ${o.excluded_sessions} excluded sessions`),
        ...(o.unscrubbed ? row('unscrubbed', `${o.unscrubbed} ${o.unscrubbed === 1 ? 'memory holds' : 'memories hold'} what today's redaction rules remove (stored before them): memory scrub writes redacted versions`) : []),
        ...row('remote', s.memory_remote ? `${s.memory_remote.name} → ${s.memory_remote.url}` : 'none: memories stay on this machine (memory init --remote URL)'),
        ...row('last push', s.last_push ?? 'never'),
        ...row('last pull', s.last_pull ?? 'never'),
      ]),
      el('p', { class: failing ? 'health-bad' : 'health-ok', text: failing ? `Sync failing: ${failing.op} ${failing.status}: ${failing.message}` : 'Sync healthy.' }),
      t,
    );
  } catch (err) {
    $('overview').replaceChildren(el('p', { text: `Overview unavailable: ${/** @type {Error} */ (err).message}` }));
  }
}

function search() {
  state.q = /** @type {HTMLInputElement} */ ($('q')).value.trim();
  state.filters = readFilters();
  state.selected.clear();
  syncSelection();
  load(true);
}

document.addEventListener('DOMContentLoaded', () => {
  $('search-form').addEventListener('submit', (e) => {
    e.preventDefault();
    search();
  });
  for (const k of ['project', 'machine', 'source', 'since', 'until']) $(`f-${k}`).addEventListener('change', search);
  $('f-file-clear').addEventListener('click', () => filterByFile(null));
  $('more-button').addEventListener('click', () => load(false));
  $('forget-selected').addEventListener('click', () => confirmForget([...state.selected]));
  $('forget-matching').addEventListener('click', forgetMatching);
  $('select-all').addEventListener('click', () => {
    for (const box of document.querySelectorAll('input[data-testid="memory-select"]')) {
      /** @type {HTMLInputElement} */ (box).checked = true;
      const id = /** @type {HTMLElement | null} */ (box.closest('[data-testid="memory-item"]'))?.dataset.id;
      if (id) state.selected.add(id);
    }
    syncSelection();
  });
  $('confirm-ok').addEventListener('click', doForget);
  $('confirm-cancel').addEventListener('click', () => /** @type {HTMLDialogElement} */ ($('confirm')).close());
  // Infinite scroll: the next page when the "Load more" row comes into view.
  new IntersectionObserver((entries) => {
    if (entries.some((e) => e.isIntersecting) && state.more && !state.loading) load(false);
  }).observe($('more'));
  loadOverview();
  load(true);
});
