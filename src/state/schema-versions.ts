/**
 * The versions of star-loop's state files, apart from their schemas: checking a file's version, or writing
 * one, needs no zod schema built (the state schema alone is ~5 ms of start-up).
 */
export const STATE_SCHEMA_VERSION = 1;
export const FLEET_SCHEMA_VERSION = 1;
