import { describe, expect, it } from 'vitest';
import { kindOf } from '../../src/gates/gate.js';

describe('kindOf', () => {
  it.each([
    ['go test -v -race ./...', 'test'],
    ['cargo test --verbose', 'test'],
    ['test -f package.json && echo ok', 'other'],
    ['make build && test -d dist', 'build'],
    ['pnpm vitest run', 'test'],
    ['ruff check .', 'lint'],
    ['tsc --noEmit', 'typecheck'],
  ])('%s → %s', (command, kind) => {
    expect(kindOf(command)).toBe(kind);
  });
});
