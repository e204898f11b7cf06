import * as z from 'zod';

export const gateSpecSchema = z.strictObject({
  name: z.string().min(1),
  command: z.string().min(1),
});

/** star.config.json at the repository root. Every key is optional; flags win over it. */
export const configSchema = z.strictObject({
  $schema: z.string().optional(),
  agent: z.string().optional(),
  agentCmd: z.string().optional(),
  model: z.string().optional(),
  maxIterations: z.number().int().positive().optional(),
  maxTime: z.string().optional(),
  maxCost: z.number().positive().optional(),
  maxTokens: z.number().int().positive().optional(),
  maxTurns: z.number().int().positive().optional(),
  maxWait: z.string().optional(),
  /** Backoff for rate-limited agents without a reset time: first wait and longest wait (durations). */
  backoff: z.strictObject({ initial: z.string().optional(), max: z.string().optional() }).optional(),
  fallbackAgent: z.string().optional(),
  /** Credential-like environment variables to pass to agents anyway (e.g. a key your tests need). */
  passEnv: z.array(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/)).optional(),
  /** USD per million tokens, by model-name prefix, over the built-in price table. */
  prices: z
    .record(
      z.string(),
      z.strictObject({
        input: z.number().nonnegative(),
        output: z.number().nonnegative(),
        cacheRead: z.number().nonnegative().optional(),
        cacheWrite: z.number().nonnegative().optional(),
      }),
    )
    .optional(),
  stallAfter: z.number().int().positive().optional(),
  parkAfter: z.number().int().positive().optional(),
  sameErrorLimit: z.number().int().positive().optional(),
  onStall: z.enum(['pause', 'stop', 'continue']).optional(),
  iterationTimeout: z.string().optional(),
  idleTimeout: z.string().optional(),
  gateTimeout: z.string().optional(),
  gates: z.array(gateSpecSchema).optional(),
  verify: z.enum(['claims', 'every', 'off']).optional(),
  verifierAgent: z.string().optional(),
  /** A claim with a source change and no new or changed test is rejected (no-new-tests). */
  requireTests: z.boolean().optional(),
  requireTestsGate: z.boolean().optional(),
  /** Mutants of the claimed lines per claim (0: none), and their time budget in multiples of the test gates' time. */
  mutants: z.number().int().min(0).optional(),
  mutantTime: z.number().positive().optional(),
  keepRuns: z.number().int().min(1).optional(),
  keepRunsMb: z.number().positive().optional(),
  verifierModel: z.string().optional(),
  onFinish: z.string().optional(),
  branch: z.string().optional(),
  base: z.string().optional(),
  protectedPaths: z.array(z.string()).optional(),
  protect: z.array(z.string()).optional(),
  prd: z.string().optional(),
  prompt: z.string().optional(),
  /**
   * The sandbox around agents and gates: `auto` (on where it can be, loud where not), `required` (refuse to
   * start without it) or `off`; hosts every agent may reach besides its own API, folders it may write
   * besides the work tree, and hosts the gates may reach (none by default).
   */
  sandbox: z
    .union([
      z.enum(['auto', 'required', 'off']),
      z.strictObject({
        mode: z.enum(['auto', 'required', 'off']).optional(),
        allowHosts: z.array(z.string()).optional(),
        allowWrite: z.array(z.string()).optional(),
        gateHosts: z.array(z.string()).optional(),
      }),
    ])
    .optional(),
});

export type StarConfig = z.infer<typeof configSchema>;
export type GateSpec = z.infer<typeof gateSpecSchema>;
