/**
 * A gitignore-style glob as a RegExp over repository-relative paths: `*` and `?` stay within a path
 * segment, `**` crosses them, and a pattern without a slash matches a name at any depth (`.env*`).
 */
export function globToRegExp(glob: string): RegExp {
  const anchored = glob.includes('/') && !glob.startsWith('**/');
  const body = glob
    .replace(/^\//, '')
    .replace(/\/$/, '/**')
    .split(/(\*\*\/|\*\*|\*|\?)/)
    .map((part) => {
      if (part === '**/') return '(?:.*/)?';
      if (part === '**') return '.*';
      if (part === '*') return '[^/]*';
      if (part === '?') return '[^/]';
      return part.replace(/[.+^${}()|[\]\\]/g, '\\$&');
    })
    .join('');
  return new RegExp(`${anchored ? '^' : '(?:^|/)'}${body}(?:/.*)?$`);
}

export function matchesAny(path: string, globs: readonly string[]): string | undefined {
  return globs.find((g) => globToRegExp(g).test(path));
}
