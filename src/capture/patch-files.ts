/**
 * The files a Codex patch names (`apply_patch`): each on a line of its own, `*** Update File:
 * src/x.ts`, `*** Add File:`, `*** Delete File:`, and where an updated file goes, `*** Move to:`.
 * Read by capture (what a turn touched) and by the file hook (what the agent touches now).
 */
const PATCH_FILE = /^\*\*\* (?:Add|Update|Delete) File: (.+)$|^\*\*\* Move to: (.+)$/gm;

/** The paths a patch's text names, as written (relative to where it was applied), in order. */
export function patchFiles(text: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(PATCH_FILE)) {
    const p = (m[1] ?? m[2])?.trim();
    if (p) out.push(p);
  }
  return out;
}

/** The files a patch moved (`*** Update File: a` then `*** Move to: b`), as written: [from, to] each. */
export function patchMoves(text: string): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  let updated: string | undefined;
  for (const m of text.matchAll(PATCH_FILE)) {
    if (m[2] !== undefined && updated !== undefined) out.push([updated, m[2].trim()]);
    updated = m[1] !== undefined && m[0].startsWith('*** Update') ? m[1].trim() : undefined;
  }
  return out;
}
