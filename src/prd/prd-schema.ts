import * as z from 'zod';

/**
 * prd.json as the common Ralph runners write it (snarktank/ralph, ralph-tui): `userStories[]` with
 * `id`, `title`, `passes` required and everything else optional. Unknown keys are kept: star-loop only
 * ever writes `passes` back, and does so as a text edit that preserves the rest of the file.
 */
export const storySchema = z.looseObject({
  id: z.string().min(1, 'must be a non-empty string such as "US-001"'),
  title: z.string().min(1, 'must be a non-empty string'),
  description: z.string().optional(),
  acceptanceCriteria: z.array(z.string()).optional(),
  priority: z.number().int('must be a whole number (1 = first)').optional(),
  passes: z.boolean(),
  notes: z.string().optional(),
  dependsOn: z.array(z.string()).optional(),
  /**
   * What kind of work the story is, for verification: `tests` (only tests change: accepted without a source
   * change), `refactor` (behaviour kept: its tests need not fail before it), else a feature or a fix, whose
   * new tests must fail without its source change.
   */
  kind: z
    .enum(['feature', 'fix', 'tests', 'refactor', 'docs', 'chore'], {
      error: 'must be one of feature, fix, tests, refactor, docs, chore',
    })
    .optional(),
});

export const prdSchema = z.looseObject({
  project: z.string().optional(),
  name: z.string().optional(),
  branchName: z.string().optional(),
  description: z.string().optional(),
  userStories: z.array(storySchema),
});

export type Story = z.infer<typeof storySchema>;
export type Prd = z.infer<typeof prdSchema>;
