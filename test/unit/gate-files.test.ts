import { describe, expect, it } from 'vitest';
import { filesGatesRun } from '../../src/gates/files-gates-run.js';
import type { Gate, RepoFiles } from '../../src/gates/gate.js';
import { checkGatePins } from '../../src/verify/check-gate-pins.js';
import { changeSet, fileChange } from '../helpers/change-of.js';

const repo = (files: Record<string, string>): RepoFiles => ({
  read: async (path) => files[path],
  list: async () => Object.keys(files),
});
const gate = (name: string, command: string): Gate => ({ name, command, kind: 'test', source: 'x' });

describe('the files a gate executes are pinned with it', () => {
  it('finds the scripts behind npm run, the files they name, make recipes and includes, local wrappers; never tests', async () => {
    const files = repo({
      'package.json': JSON.stringify({
        scripts: {
          prelint: 'sh ./tools/prepare.sh',
          lint: 'node scripts/lint.js && eslint src',
          test: 'node --test test/*.test.js test/a.test.js',
        },
      }),
      'tools/prepare.sh': 'true',
      'scripts/lint.js': '',
      'test/a.test.js': '',
      Makefile:
        'include common.mk\n-include local.mk\ncheck: build\n\t./scripts/check.sh --all\n\tpython tools/gen.py\n',
      'common.mk': 'X=1',
      'scripts/check.sh': '',
      'tools/gen.py': '',
      gradlew: '#!/bin/sh',
    });
    const gates = [
      gate('lint', 'npm run lint'),
      gate('test', 'npm test'),
      gate('check', 'make check'),
      gate('java', './gradlew test'),
    ];
    expect(await filesGatesRun(files, gates)).toEqual([
      'common.mk',
      'gradlew',
      'scripts/check.sh',
      'scripts/lint.js',
      'tools/gen.py',
      'tools/prepare.sh',
    ]);
  });

  it('a change to one is a gate-changed finding; .npmrc, .yarnrc.yml and a makefile include line are pinned too', () => {
    const script = fileChange('scripts/lint.js', 'lint()\n', 'process.exit(0)\n');
    expect(checkGatePins(changeSet([script]), ['scripts/lint.js']).map((f) => f.detail)).toEqual([
      'scripts/lint.js (a file the gates run) was changed: the gates are pinned for the run',
    ]);
    expect(checkGatePins(changeSet([script]), [])).toEqual([]);
    const npmrc = fileChange('.npmrc', undefined, 'node-options=--require ./evil.js\n');
    const yarnrc = fileChange('.yarnrc.yml', 'nodeLinker: pnp\n', 'nodeLinker: pnp\nyarnPath: evil.cjs\n');
    const make = fileChange('Makefile', 'test:\n\tgo test ./...\n', '-include evil.mk\ntest:\n\tgo test ./...\n');
    expect(checkGatePins(changeSet([npmrc, yarnrc, make])).map((f) => f.file)).toEqual([
      '.npmrc',
      '.yarnrc.yml',
      'Makefile',
    ]);
  });
});
