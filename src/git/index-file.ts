import type { BigIntStats } from 'node:fs';

/**
 * git's index file (`.git/index`, versions 2 and 3), read and written by star-loop itself for its own commits
 * (src/git/commit-from-index.ts), so a commit needs no `update-index` or `write-tree` process. Only the part
 * star-loop needs: entries are kept as their bytes on disk and rewritten only where a file changed. Paths are
 * byte strings (latin1: one character a byte), so JavaScript's string order is git's byte order. Pure.
 */

/** An index entry star-loop made: its bytes as on disk, and what star-loop reads of them. */
export interface IndexEntry {
  /** The path as bytes (latin1). */
  path: string;
  mode: number;
  /** The object id, hexadecimal. */
  oid: string;
  bytes: Buffer;
}

/**
 * An index as read: its bytes, and where each entry starts (the last offset is where the entries end).
 * Nothing is decoded until asked: on 100,000 files a commit reads a few dozen entries' paths, not all.
 */
export interface ParsedIndex {
  version: 2 | 3;
  data: Buffer;
  hashBytes: number;
  offsets: Uint32Array;
  /** The cache-tree extension's data (`TREE`), when the index has one. */
  tree?: Buffer;
  /** The resolve-undo extension (`REUC`), kept as it is. */
  resolveUndo?: Buffer;
}

/** Fixed part of an entry before the object id: ten 32-bit fields (times, dev, ino, mode, uid, gid, size). */
const STAT_BYTES = 40;
const NAME_MASK = 0x0fff;
const EXTENDED = 0x4000;
const STAGE_MASK = 0x3000;
const ASSUME_VALID = 0x8000;

/**
 * The index in `data`, or why star-loop leaves it to git: another version (v4 compresses paths), a split or
 * sparse index, an unmerged or flagged entry (skip-worktree, intent-to-add, assume-unchanged), an extension
 * it must understand but does not. Optional caches it drops (untracked cache, fsmonitor, offset tables) git
 * rebuilds when it needs them. The trailing checksum is not checked: the caller reads only an index it wrote.
 */
export function parseIndex(data: Buffer, hashBytes: number): ParsedIndex | string {
  if (data.length < 12 + hashBytes || data.toString('latin1', 0, 4) !== 'DIRC') return 'not an index file';
  const version = data.readUInt32BE(4);
  if (version !== 2 && version !== 3) return `index version ${version}`;
  const count = data.readUInt32BE(8);
  const end = data.length - hashBytes;
  const offsets = new Uint32Array(count + 1);
  let at = 12;
  for (let i = 0; i < count; i++) {
    offsets[i] = at;
    const flagsAt = at + STAT_BYTES + hashBytes;
    if (flagsAt + 2 > end) return 'truncated index';
    const flags = data.readUInt16BE(flagsAt);
    if (flags & (STAGE_MASK | ASSUME_VALID | EXTENDED)) return 'an unmerged or flagged entry';
    const nameAt = flagsAt + 2;
    let nameLength = flags & NAME_MASK;
    if (nameLength === NAME_MASK) nameLength = data.indexOf(0, nameAt) - nameAt;
    if (nameLength < 0 || nameAt + nameLength > end) return 'truncated index';
    at += (STAT_BYTES + hashBytes + 2 + nameLength + 8) & ~7;
  }
  offsets[count] = at;
  const parsed: ParsedIndex = { version, data, hashBytes, offsets };
  while (at + 8 <= end) {
    const signature = data.toString('latin1', at, at + 4);
    const size = data.readUInt32BE(at + 4);
    const body = data.subarray(at + 8, at + 8 + size);
    if (body.length !== size) return 'truncated extension';
    if (signature === 'TREE') parsed.tree = body;
    else if (signature === 'REUC') parsed.resolveUndo = body;
    // An extension whose name starts with a capital is optional; any other must be understood (split, sparse).
    else if (!/^[A-Z]/.test(signature)) return `index extension ${JSON.stringify(signature)}`;
    at += 8 + size;
  }
  return parsed;
}

/** A run of the old index's entries (positions `from` up to `to`), or an entry star-loop made. */
export type EntryPart = { from: number; to: number } | IndexEntry;

/**
 * The entries of a new index: runs of the old one's and star-loop's own, in git's order. Runs are kept as
 * ranges, so 100,000 unchanged entries cost nothing until written (and then are copied whole).
 */
export class Entries {
  readonly length: number;
  /** Where each part starts among the entries. */
  private readonly starts: number[] = [];

  constructor(
    readonly index: ParsedIndex,
    readonly parts: readonly EntryPart[],
  ) {
    let n = 0;
    for (const part of parts) {
      this.starts.push(n);
      n += 'from' in part ? part.to - part.from : 1;
    }
    this.length = n;
  }

  /** All of an index's entries, as they are. */
  static of(index: ParsedIndex): Entries {
    return new Entries(index, [{ from: 0, to: index.offsets.length - 1 }]);
  }

  /** The entry at position `i`: the old index's position, or star-loop's entry. */
  private at(i: number): number | IndexEntry {
    let lo = 0;
    let hi = this.starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >>> 1;
      if ((this.starts[mid] as number) <= i) lo = mid;
      else hi = mid - 1;
    }
    const part = this.parts[lo] as EntryPart;
    return 'from' in part ? part.from + (i - (this.starts[lo] as number)) : part;
  }

  path(i: number): string {
    const ref = this.at(i);
    if (typeof ref !== 'number') return ref.path;
    const { data, offsets, hashBytes } = this.index;
    const nameAt = (offsets[ref] as number) + STAT_BYTES + hashBytes + 2;
    let nameLength = data.readUInt16BE(nameAt - 2) & NAME_MASK;
    if (nameLength === NAME_MASK) nameLength = data.indexOf(0, nameAt) - nameAt;
    return data.toString('latin1', nameAt, nameAt + nameLength);
  }

  mode(i: number): number {
    const ref = this.at(i);
    return typeof ref === 'number' ? this.index.data.readUInt32BE((this.index.offsets[ref] as number) + 24) : ref.mode;
  }

  oid(i: number): string {
    const ref = this.at(i);
    if (typeof ref !== 'number') return ref.oid;
    const at = (this.index.offsets[ref] as number) + STAT_BYTES;
    return this.index.data.toString('hex', at, at + this.index.hashBytes);
  }

  /** The entries' bytes as they go into the file. */
  chunks(): Buffer[] {
    const { data, offsets } = this.index;
    return this.parts.flatMap((part) => {
      if (!('from' in part)) return [part.bytes];
      return part.to > part.from ? [data.subarray(offsets[part.from], offsets[part.to])] : [];
    });
  }
}

/** The 32-bit field git stores for a number (it keeps the low bits). */
const low32 = (n: bigint) => Number(n & 0xffffffffn);

/** An entry for a file as `stat` found it, with its blob's id and mode: what `git add` would write. */
export function entryFor(path: string, oid: string, mode: number, st: BigIntStats, hashBytes: number): IndexEntry {
  const nameLength = Buffer.byteLength(path, 'latin1');
  const size = (STAT_BYTES + hashBytes + 2 + nameLength + 8) & ~7;
  const bytes = Buffer.alloc(size);
  const fields = [
    st.ctimeNs / 1_000_000_000n,
    st.ctimeNs % 1_000_000_000n,
    st.mtimeNs / 1_000_000_000n,
    st.mtimeNs % 1_000_000_000n,
    st.dev,
    st.ino,
    BigInt(mode),
    st.uid,
    st.gid,
    st.size,
  ];
  fields.forEach((value, i) => {
    bytes.writeUInt32BE(low32(value), i * 4);
  });
  bytes.write(oid, STAT_BYTES, hashBytes, 'hex');
  bytes.writeUInt16BE(Math.min(nameLength, NAME_MASK), STAT_BYTES + hashBytes);
  bytes.write(path, STAT_BYTES + hashBytes + 2, nameLength, 'latin1');
  return { path, mode, oid, bytes };
}

/** An entry's modification time, in nanoseconds. */
export function entryMtimeNs(entry: IndexEntry): bigint {
  return BigInt(entry.bytes.readUInt32BE(8)) * 1_000_000_000n + BigInt(entry.bytes.readUInt32BE(12));
}

/**
 * The same entry with its size field 0, as git marks an entry written in the same instant as the index
 * ("racily clean"): git then compares the file's content instead of trusting its stat data.
 */
export function smudged(entry: IndexEntry): IndexEntry {
  const bytes = Buffer.from(entry.bytes);
  bytes.writeUInt32BE(0, 36);
  return { ...entry, bytes };
}

/** The index file's parts without its checksum, which the caller appends (its hash depends on the repository). */
export function serializeIndex(index: ParsedIndex, entries: Entries, tree: Buffer | undefined): Buffer[] {
  const header = Buffer.alloc(12);
  header.write('DIRC', 0, 'latin1');
  header.writeUInt32BE(index.version, 4);
  header.writeUInt32BE(entries.length, 8);
  const extension = (signature: string, body: Buffer) => {
    const head = Buffer.alloc(8);
    head.write(signature, 0, 'latin1');
    head.writeUInt32BE(body.length, 4);
    return [head, body];
  };
  return [
    header,
    ...entries.chunks(),
    ...(tree ? extension('TREE', tree) : []),
    ...(index.resolveUndo ? extension('REUC', index.resolveUndo) : []),
  ];
}
