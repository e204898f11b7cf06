import * as z from 'zod';

/** `.star/claim.json`, written by the implementer agent. Missing or malformed means no claim. */
export const claimSchema = z.looseObject({
  complete: z.boolean(),
  story: z.string().optional(),
  summary: z.string().optional(),
  notes: z.string().optional(),
});

export type ClaimFile = z.infer<typeof claimSchema>;
