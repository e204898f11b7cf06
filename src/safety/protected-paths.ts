/** Paths the agent must not change; star.config.json's `protectedPaths` replaces this list, `protect` adds to it. */
export const DEFAULT_PROTECTED = ['.env*', '.github/workflows/**'];
