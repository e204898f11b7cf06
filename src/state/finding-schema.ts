import * as z from 'zod';

/**
 * One reason a claim was rejected or a boundary crossed, as the state, the report, the journal and the next prompt show
 * it.
 */
export const findingSchema = z.object({
  rule: z.string(),
  detail: z.string(),
  gate: z.string().optional(),
  command: z.string().optional(),
  file: z.string().optional(),
  line: z.number().optional(),
  /** Verbatim tail of the failing command's output. */
  output: z.string().optional(),
});

export type Finding = z.infer<typeof findingSchema>;
