/**
 * The index's cache-tree extension (`TREE`): for each folder, how many index entries lie under it and, while
 * that is known to be current, the id of its tree. `git status` skips the folders whose tree it matches, so
 * star-loop keeps it current when it writes the index itself (src/git/commit-from-index.ts). Folders are keyed
 * by their path as bytes (latin1), `''` the root. Pure.
 */

export interface CacheTreeNode {
  /** Index entries under the folder; -1 while its tree is not known (git works it out when it next needs it). */
  count: number;
  oid?: string;
  /** Its subfolders that have a node of their own, by name. */
  children: string[];
}

export type CacheTree = Map<string, CacheTreeNode>;

const childPath = (dir: string, name: string) => (dir ? `${dir}/${name}` : name);

/** The extension's nodes by folder, or undefined when its data cannot be read (the caller then leaves it out). */
export function parseCacheTree(data: Buffer, hashBytes: number): CacheTree | undefined {
  const tree: CacheTree = new Map();
  let at = 0;
  const readNode = (dir: string | undefined): boolean => {
    const nul = data.indexOf(0, at);
    const newline = nul < 0 ? -1 : data.indexOf(10, nul);
    if (newline < 0) return false;
    const name = data.toString('latin1', at, nul);
    const [count, subtrees] = data
      .toString('latin1', nul + 1, newline)
      .split(' ')
      .map(Number);
    if (!Number.isInteger(count) || !Number.isInteger(subtrees)) return false;
    at = newline + 1;
    const path = dir === undefined ? '' : childPath(dir, name);
    const node: CacheTreeNode = { count: count as number, children: [] };
    if (node.count >= 0) {
      if (at + hashBytes > data.length) return false;
      node.oid = data.toString('hex', at, at + hashBytes);
      at += hashBytes;
    }
    tree.set(path, node);
    for (let i = 0; i < (subtrees as number); i++) {
      const nameEnd = data.indexOf(0, at);
      if (nameEnd < 0) return false;
      node.children.push(data.toString('latin1', at, nameEnd));
      if (!readNode(path)) return false;
    }
    return true;
  };
  if (data.length === 0) return tree;
  return readNode(undefined) && at === data.length ? tree : undefined;
}

/** git's order of a folder's subtrees: shorter names first, then by bytes. */
function bySubtreeName(a: string, b: string): number {
  return a.length - b.length || (a < b ? -1 : a > b ? 1 : 0);
}

/** The extension's data for `tree` from its root, or undefined when it has no root. */
export function serializeCacheTree(tree: CacheTree, hashBytes: number): Buffer | undefined {
  if (!tree.has('')) return undefined;
  const parts: Buffer[] = [];
  const write = (path: string, name: string) => {
    const node = tree.get(path);
    if (!node) return;
    const children = node.children.filter((c) => tree.has(childPath(path, c))).sort(bySubtreeName);
    const known = node.count >= 0 && node.oid !== undefined;
    parts.push(Buffer.from(`${name}\0${known ? node.count : -1} ${children.length}\n`, 'latin1'));
    if (known) parts.push(Buffer.from(node.oid as string, 'hex').subarray(0, hashBytes));
    for (const child of children) write(childPath(path, child), child);
  };
  write('', '');
  return Buffer.concat(parts);
}
