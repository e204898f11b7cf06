import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Real projects' own suites are fixtures (test/fixtures/projects), run by star-loop's tests, not by vitest.
    exclude: ['test/fixtures/**', '**/node_modules/**'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // The CLIs the tests start keep their compiled code in a temp folder, not the user's ~/.cache.
    env: { STAR_LOOP_CODE_CACHE: join(tmpdir(), 'star-loop-test-code-cache') },
  },
});
