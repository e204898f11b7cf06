/**
 * A file that decides what a gate runs. `parts` names the pieces of it that matter (a script, a target, a
 * config section, or the whole file); a change to any of them during a run is a changed gate.
 */
export interface PinSource {
  name: string;
  matches(path: string): boolean;
  parts(text: string): Map<string, string>;
}

export const wholeFile = (text: string) => new Map([['the whole file', text.trim()]]);

/** `[section]` blocks of an INI or TOML file whose header matches `sections`. */
export function iniSections(text: string, sections: RegExp): Map<string, string> {
  const out = new Map<string, string>();
  let current: string | undefined;
  for (const line of text.split('\n')) {
    const header = /^\s*\[([^\]]+)\]\s*$/.exec(line);
    if (header) current = sections.test(header[1] ?? '') ? `[${header[1]}]` : undefined;
    else if (current && line.trim() && !/^\s*[#;]/.test(line))
      out.set(current, `${out.get(current) ?? ''}${line.trim()}\n`);
  }
  return out;
}
