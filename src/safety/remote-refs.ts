import { isAbsolute, resolve } from 'node:path';
import type { Git } from '../git/git.js';

export interface RemoteSnapshot {
  tracking: Map<string, string>;
  /** Remotes given by a local path: their real refs, read without network. */
  local: Map<string, Map<string, string>>;
}

function localPath(root: string, url: string): string | undefined {
  if (url.startsWith('file://')) return url.slice('file://'.length);
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(url) || /^[^/]+@[^:]+:/.test(url)) return undefined;
  return isAbsolute(url) ? url : resolve(root, url);
}

export async function snapshotRemotes(git: Git, root: string): Promise<RemoteSnapshot> {
  const local = new Map<string, Map<string, string>>();
  for (const remote of await git.remotes()) {
    const path = localPath(root, remote.url);
    if (path) local.set(remote.name, await git.localRemoteRefs(path));
  }
  return { tracking: await git.refs('refs/remotes/'), local };
}

/**
 * What was pushed between two snapshots: a remote-tracking ref whose newest reflog entry is a push, or a
 * local remote whose refs moved. Fetches move tracking refs too, but never by push.
 */
export async function pushedSince(git: Git, before: RemoteSnapshot, after: RemoteSnapshot): Promise<string[]> {
  const pushed: string[] = [];
  for (const [ref, commit] of after.tracking) {
    // A local remote's real refs are compared below; its tracking refs would only say the same twice.
    if (after.local.has(ref.split('/')[2] ?? '')) continue;
    if (before.tracking.get(ref) !== commit && /push/i.test((await git.lastReflog(ref)) ?? ''))
      pushed.push(ref.replace('refs/remotes/', ''));
  }
  for (const [remote, refs] of after.local) {
    const was = before.local.get(remote) ?? new Map();
    for (const [ref, commit] of refs) if (was.get(ref) !== commit && ref !== 'HEAD') pushed.push(`${remote} ${ref}`);
  }
  return [...new Set(pushed)];
}
