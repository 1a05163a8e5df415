/**
 * `[privacy] exclude_projects`: glob patterns matched against the project name, the
 * session's cwd, and each folder name along the cwd — so `secret-*` also excludes
 * `/home/u/mono/secret-y` (filed as project "mono"), and `**\/secret-client*` or
 * `/work/clients/*` match by path.
 */

function globToRegExp(glob: string): RegExp {
  let re = '';
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i] as string;
    if (c === '*') {
      if (glob[i + 1] === '*') {
        re += '.*';
        i++;
      } else re += '[^/]*';
    } else if (c === '?') re += '[^/]';
    else re += c.replace(/[.+^${}()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${re}$`);
}

/**
 * A search's `hide`: memories of an excluded project (captured before it was excluded)
 * stay out of sight. Undefined when nothing is excluded.
 */
export function hideExcluded(patterns: string[]): ((row: { project: string | null; cwd: string | null }) => boolean) | undefined {
  return patterns.length === 0 ? undefined : (row) => isExcluded(patterns, row.project ?? undefined, row.cwd ?? undefined);
}

export function isExcluded(patterns: string[], project: string | undefined, cwd: string | undefined): boolean {
  for (const p of patterns) {
    const re = globToRegExp(p);
    if (project !== undefined && re.test(project)) return true;
    if (cwd !== undefined && (re.test(cwd) || re.test(cwd.replace(/\\/g, '/')))) return true;
    // A folder pattern also covers everything below it.
    if (cwd !== undefined && globToRegExp(`${p.replace(/\/+$/, '')}/**`).test(cwd)) return true;
    // A pattern without a slash is a folder name: any folder along the cwd.
    if (cwd !== undefined && !p.includes('/') && cwd.replace(/\\/g, '/').split('/').some((seg) => seg.length > 0 && re.test(seg))) return true;
  }
  return false;
}
