import { InputError } from '../errors.js';
import { readPrdNow } from '../prd/read-prd-passes.js';
import type { RunState } from '../state/state-schema.js';
import type { LoopContext } from './loop-context.js';

/** What is left: the ids of stories without `passes`, or the task while it is not accepted. */
export async function remainingWork(ctx: LoopContext, state: RunState): Promise<string[]> {
  if (ctx.options.prdFile) {
    const now = await readPrdNow(ctx.options.prdFile);
    if (!now.loaded)
      throw new InputError(
        `prd.json cannot be read: ${now.error}`,
        'fix prd.json (`star-loop validate prd.json` says what is wrong), then `star-loop resume`',
      );
    // --story: only that story is this run's work.
    return now.loaded.prd.userStories
      .filter((s) => !s.passes && (!ctx.options.story || s.id === ctx.options.story))
      .map((s) => s.id);
  }
  return state.taskComplete ? [] : ['task'];
}
