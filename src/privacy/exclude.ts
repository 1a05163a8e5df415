/** `[privacy] exclude_projects`: glob patterns on the project name or the session's cwd. */

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

export function isExcluded(patterns: string[], project: string | undefined, cwd: string | undefined): boolean {
  for (const p of patterns) {
    const re = globToRegExp(p);
    if (project !== undefined && re.test(project)) return true;
    if (cwd !== undefined && (re.test(cwd) || re.test(cwd.replace(/\\/g, '/')))) return true;
    // A folder pattern also covers everything below it.
    if (cwd !== undefined && globToRegExp(`${p.replace(/\/+$/, '')}/**`).test(cwd)) return true;
  }
  return false;
}
