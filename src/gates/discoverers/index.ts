import type { GateDiscoverer } from '../gate.js';
import { cargoDiscoverer } from './cargo.js';
import { contributingDiscoverer } from './contributing.js';
import { goModDiscoverer } from './go-mod.js';
import { jvmDiscoverer } from './jvm.js';
import { justfileDiscoverer, makefileDiscoverer } from './makefile.js';
import { packageJsonDiscoverer } from './package-json.js';
import { pythonDiscoverer } from './python.js';
import { workflowsDiscoverer } from './workflows.js';

/**
 * Every gate discoverer, in precedence order: a command found by an earlier one keeps that source when a
 * later one (CI steps, CONTRIBUTING.md) names it again. Adding an ecosystem: one file here and one line.
 */
export const gateDiscoverers: readonly GateDiscoverer[] = [
  packageJsonDiscoverer,
  makefileDiscoverer,
  justfileDiscoverer,
  pythonDiscoverer,
  cargoDiscoverer,
  goModDiscoverer,
  jvmDiscoverer,
  workflowsDiscoverer,
  contributingDiscoverer,
];
