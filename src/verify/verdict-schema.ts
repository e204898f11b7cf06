import * as z from 'zod';

/** The verifier agent's answer, in the file its prompt names. Malformed or missing is a reject. */
export const verdictSchema = z.object({
  verdict: z.enum(['accept', 'reject']),
  findings: z
    .array(
      z.object({
        rule: z.string(),
        file: z.string().optional(),
        line: z.number().int().optional(),
        detail: z.string(),
      }),
    )
    .default([]),
});

export type Verdict = z.infer<typeof verdictSchema>;
