/**
 * A Makefile's targets: each one's prerequisites and recipe lines (`@`, `-`, `+` prefixes off, `$(MAKE)` as
 * `make`), so `make check` can be seen to run `make lint` and `make test`. Pure.
 */
export function makeTargets(text: string): Record<string, { needs: string[]; recipe: string[] }> {
  const targets: Record<string, { needs: string[]; recipe: string[] }> = {};
  let current: { needs: string[]; recipe: string[] } | undefined;
  for (const line of text.split('\n')) {
    if (line.startsWith('\t')) {
      const command = line
        .trim()
        .replace(/^[@+-]+/, '')
        .replace(/\$\(MAKE\)|\$\{MAKE\}/g, 'make')
        .trim();
      if (current && command && !command.startsWith('#')) current.recipe.push(command);
      continue;
    }
    const rule = /^([A-Za-z0-9_.-]+(?:\s+[A-Za-z0-9_.-]+)*)\s*:(?![=:])([^;#]*)/.exec(line);
    if (rule) {
      current = { needs: (rule[2] ?? '').split('|')[0]?.trim().split(/\s+/).filter(Boolean) ?? [], recipe: [] };
      for (const name of (rule[1] ?? '').split(/\s+/)) targets[name] = current;
    } else if (line.trim() && !line.startsWith('#')) current = undefined;
  }
  return targets;
}
