import { MAYBE_SECRET } from './secret-rules.js';

/** More than any rule needs to see of a line at once (the longest shape is ~130 characters). */
const OVERLAP = 4096;

/**
 * The lines of a text that may hold a secret (they contain MAYBE_SECRET), each once, with its number, from
 * chunks of any size: lines end at `\n` as git counts them (a `\r` before it is dropped), and a line split
 * across chunks is joined first. Only those lines are cut out of the text, so a long file with nothing in it
 * costs one regular-expression pass. A line longer than `longLine` (a binary without newlines) is looked at
 * in overlapping parts instead, so memory stays bounded and a gigabyte hides nothing: a part may then be
 * reported with its line's number more than once. Pure.
 */
export async function candidateLines(
  chunks: AsyncIterable<string> | Iterable<string>,
  onLine: (line: string, n: number) => void,
  longLine = 1 << 20,
): Promise<void> {
  const find = new RegExp(MAYBE_SECRET.source, 'gi');
  // `carry`: the unfinished last line of what was read so far; `first`: its number.
  let carry = '';
  let first = 1;
  const scan = (block: string) => {
    let line = first;
    let counted = 0;
    find.lastIndex = 0;
    for (let m = find.exec(block); m; m = find.exec(block)) {
      const start = block.lastIndexOf('\n', m.index) + 1;
      const newline = block.indexOf('\n', m.index);
      const end = newline === -1 ? block.length : newline;
      line += newlinesIn(block, counted, start);
      counted = start;
      onLine(block.charCodeAt(end - 1) === 13 ? block.slice(start, end - 1) : block.slice(start, end), line);
      // The rest of this line is already reported.
      find.lastIndex = end;
    }
    first = line + newlinesIn(block, counted, block.length);
  };
  for await (const chunk of chunks) {
    const text = carry + chunk;
    const last = text.lastIndexOf('\n');
    if (last === -1) {
      carry = text;
      if (carry.length > longLine) {
        // Its end is kept and read again with what follows: a match cut here starts in it.
        scan(carry);
        carry = carry.slice(-OVERLAP);
      }
      continue;
    }
    scan(text.slice(0, last + 1));
    carry = text.slice(last + 1);
  }
  if (carry) scan(carry);
}

function newlinesIn(text: string, from: number, to: number): number {
  let n = 0;
  for (let i = text.indexOf('\n', from); i !== -1 && i < to; i = text.indexOf('\n', i + 1)) n++;
  return n;
}
