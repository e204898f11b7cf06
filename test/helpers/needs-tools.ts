import { execFileSync } from 'node:child_process';

const found = new Map<string, boolean>();

/** Whether a tool is on PATH (go, cargo): a scenario that needs a missing one is reported NOT RUN, by name. */
export function missingTools(tools: readonly string[] = []): string[] {
  return tools.filter((tool) => {
    if (!found.has(tool)) {
      try {
        execFileSync('sh', ['-c', `command -v ${tool}`], { stdio: 'ignore' });
        found.set(tool, true);
      } catch {
        found.set(tool, false);
      }
    }
    return !found.get(tool);
  });
}
