import * as z from 'zod';
import { configSchema } from '../config/config-schema.js';
import { ExitCode, InputError } from '../errors.js';
import { fleetEventSchema } from '../fleet/fleet-event-schema.js';
import { loopEventSchema } from '../loop/event-schema.js';
import { prdSchema } from '../prd/prd-schema.js';
import { printLine } from '../report/terminal-output.js';
import { claimSchema } from '../state/claim-schema.js';
import { verdictSchema } from '../verify/verdict-schema.js';

const SCHEMAS = {
  prd: [prdSchema, 'prd.json: the user stories star-loop works through', 'input'],
  config: [configSchema, 'star.config.json: settings at the repository root', 'input'],
  claim: [claimSchema, '.star/claim.json: the implementer agent’s completion claim', 'input'],
  verdict: [verdictSchema, '.star/verdict.json: the verifier agent’s verdict', 'input'],
  events: [loopEventSchema, 'one `--json` event (a line of stdout, or of .star/log.jsonl)', 'output'],
  'fleet-events': [
    fleetEventSchema,
    'one `star-loop fleet --json` event (a line of stdout, or of .star/fleet/log.jsonl)',
    'output',
  ],
} as const;

export type SchemaName = keyof typeof SCHEMAS;

/** The JSON Schema (draft 2020-12) generated from the zod schema star-loop itself validates with. */
export function jsonSchemaFor(name: SchemaName): Record<string, unknown> {
  const [schema, title, io] = SCHEMAS[name];
  return {
    ...z.toJSONSchema(schema, { target: 'draft-2020-12', io, unrepresentable: 'any' }),
    title: `star-loop ${name}`,
    description: title,
  };
}

export async function schemaCommand(name: string): Promise<ExitCode> {
  if (!Object.hasOwn(SCHEMAS, name)) {
    throw new InputError(`schema ${name}: unknown schema`, `use one of: ${Object.keys(SCHEMAS).join(', ')}`);
  }
  printLine(JSON.stringify(jsonSchemaFor(name as SchemaName), null, 2));
  return ExitCode.Complete;
}
