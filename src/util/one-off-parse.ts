/**
 * The options for a zod parse that runs once or a few times a run (a file read at start-up, a claim an
 * iteration): zod otherwise compiles a fast path for each object schema on its first parse, which costs
 * more than the parse itself (~6 ms of `run --dry-run`).
 */
export const ONE_OFF_PARSE = { jitless: true } as const;
