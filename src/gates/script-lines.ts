const OPENS = /^(if|for|while|until|case|select)\b/;
const CLOSES = /^(fi|done|esac)\b|;\s*(fi|done|esac)\s*$/;
/** `cd dir` and `export A=b` on a line of their own: they hold for the commands after them. */
const CARRIED = /^(cd\s+\S+|export\s+[A-Za-z_]\w*=\S*)$/;

/**
 * A shell script (a workflow's `run: |`, a tox `commands =` list) as the commands it runs, one per line:
 * `\` continuations joined, comments and blank lines left out, a `cd` or `export` on its own line carried
 * into the commands after it, and anything inside `if`/`for`/`while`/`case` left out (it is not one
 * command). `offset` is the command's first line in the script, from 0. Pure.
 */
export function scriptLines(script: string): Array<{ command: string; offset: number }> {
  const out: Array<{ command: string; offset: number }> = [];
  const carried: string[] = [];
  const lines = script.split('\n');
  let depth = 0;
  for (let i = 0; i < lines.length; i++) {
    const offset = i;
    let line = (lines[i] ?? '').trim();
    while (line.endsWith('\\') && i + 1 < lines.length)
      line = `${line.slice(0, -1).trim()} ${(lines[++i] ?? '').trim()}`;
    if (!line || line.startsWith('#')) continue;
    if (OPENS.test(line)) {
      if (!CLOSES.test(line)) depth++;
      continue;
    }
    if (depth > 0) {
      if (CLOSES.test(line)) depth--;
      continue;
    }
    if (CARRIED.test(line)) {
      carried.push(line);
      continue;
    }
    out.push({ command: [...carried, line].join(' && '), offset });
  }
  return out;
}
