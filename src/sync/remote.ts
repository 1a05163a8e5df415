/** The memory remote as git knows it: its URL, whether it answers, fetching one branch of it. */
import { type NetworkLimits, type Repo, classify, git, runNetworkGit } from './process.js';

/** The URL of a remote, or undefined when there is no such remote. */
export async function remoteUrlOf(repo: Repo, name: string): Promise<string | undefined> {
  try {
    const url = (await git(repo.root).raw(['remote', 'get-url', name])).trim();
    return url.length > 0 ? url : undefined;
  } catch {
    return undefined;
  }
}

/** Point remote `name` at `url` (add it, or change its URL). */
export async function setRemote(repo: Repo, name: string, url: string): Promise<void> {
  const current = await remoteUrlOf(repo, name);
  if (current === url) return;
  await git(repo.root).raw(current === undefined ? ['remote', 'add', name, url] : ['remote', 'set-url', name, url]);
}

/** Can we read that repository? Lists its branches. */
export async function probeRemote(repo: Repo, url: string, limits: NetworkLimits): Promise<{ ok: boolean; branches: string[]; detail?: string }> {
  try {
    const out = (await runNetworkGit(repo.root, ['ls-remote', '--heads', url], limits)).stdout;
    const branches = out.split('\n').map((l) => l.split('\t')[1] ?? '').filter((r) => r.startsWith('refs/heads/')).map((r) => r.slice('refs/heads/'.length));
    return { ok: true, branches };
  } catch (err) {
    return { ok: false, branches: [], detail: classify(err).detail };
  }
}

/** Fetch `branch` of `url` into `ref` (no remote named), bounded like every network call. */
export async function fetchInto(repo: Repo, url: string, branch: string, ref: string, limits: NetworkLimits): Promise<{ ok: boolean; detail?: string }> {
  try {
    await runNetworkGit(repo.root, ['fetch', '--progress', '--no-tags', url, `+refs/heads/${branch}:${ref}`], limits);
    return { ok: true };
  } catch (err) {
    return { ok: false, detail: classify(err).detail };
  }
}

export async function deleteRef(repo: Repo, ref: string): Promise<void> {
  await git(repo.root).raw(['update-ref', '-d', ref]).catch(() => '');
}

export async function removeRemote(repo: Repo, name: string): Promise<void> {
  await git(repo.root).raw(['remote', 'remove', name]).catch(() => '');
}
