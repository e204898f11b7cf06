/**
 * The YAML parser's parts the workflow discoverer uses, imported statically here so the bundle gives them
 * their names: `workflows.ts` imports this module only when a project has a workflow to read.
 */
export { isMap, isScalar, isSeq, LineCounter, parseDocument } from 'yaml';
