import { writeFile } from 'node:fs/promises';
import type { Git } from '../git/git.js';
import { passesMap, readPrdNow } from '../prd/read-prd-passes.js';
import { setStoryPasses } from '../prd/set-story-passes.js';

export interface SettledPrd {
  /** Stories the agent flipped to `passes: true`: claims, nothing more. */
  flipped: string[];
  /** Stories whose `passes` star-loop set back to what it was before the iteration. */
  restored: string[];
  commit?: string;
  /** Why the agent's prd.json could not be read (invalid JSON, deleted, a field of the wrong type): restored. */
  broken?: string;
}

/**
 * star-loop owns `passes`: whatever the agent wrote there is set back (and committed), and a flip to true
 * becomes a claim to verify. Everything else the agent changed in prd.json is kept — unless it left the file
 * unreadable: then prd.json is put back as the iteration found it (the agent's version stays in its commit).
 */
export async function settlePrd(
  git: Git,
  file: string,
  before: { passes: ReadonlyMap<string, boolean>; text: string },
  iteration: number,
): Promise<SettledPrd> {
  const now = await readPrdNow(file);
  if (!now.loaded) {
    const broken = (now.error ?? '').replace(`${file}: `, '');
    await writeFile(file, before.text, 'utf8');
    const commit = await git.commitAll(
      `star-loop: iteration ${iteration}: restore prd.json (the agent left it unreadable: ${broken.slice(0, 200)})`,
    );
    return { flipped: [], restored: [], commit, broken };
  }
  const after = passesMap(now.loaded);
  const restored = [...before.passes]
    .filter(([id, passes]) => after.has(id) && after.get(id) !== passes)
    .map(([id]) => id);
  const flipped = restored.filter((id) => after.get(id) === true);
  if (restored.length === 0) return { flipped, restored };
  let text = now.loaded.text;
  for (const id of restored) text = setStoryPasses(text, id, before.passes.get(id) === true);
  await writeFile(file, text, 'utf8');
  const commit = await git.commitAll(
    `star-loop: iteration ${iteration}: restore passes of ${restored.join(', ')} (star-loop sets passes only ` +
      `after verification)`,
  );
  return { flipped, restored, commit };
}

/** Sets `passes: true` for verified stories and commits that change alone. */
export async function markStoriesPassed(
  git: Git,
  file: string,
  stories: readonly string[],
  iteration: number,
): Promise<string | undefined> {
  const now = await readPrdNow(file);
  if (!now.loaded) throw new Error(`cannot record verified stories: ${now.error}`);
  let text = now.loaded.text;
  for (const id of stories) text = setStoryPasses(text, id, true);
  await writeFile(file, text, 'utf8');
  return git.commitAll(`star-loop: ${stories.join(', ')} passes (verified in iteration ${iteration})`);
}
