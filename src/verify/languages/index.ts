import { go } from './go.js';
import { java } from './java.js';
import { javascript } from './javascript.js';
import type { Language } from './language.js';
import { python } from './python.js';
import { rust } from './rust.js';

/** Every language the cheat detectors know. A new language: one file beside this one, one line here. */
export const languages: readonly Language[] = [javascript, python, go, rust, java];

export function languageOf(path: string): Language | undefined {
  return languages.find((l) => l.files.test(path));
}

export function isTestFile(path: string): boolean {
  return languageOf(path)?.testFile.test(path) ?? false;
}

/** Snapshot files of Jest/Vitest, syrupy, insta and the like. */
export function isSnapshotFile(path: string): boolean {
  return /(^|\/)__snapshots__\/|\.snap$|\.ambr$|(^|\/)snapshots\/.*\.snap/.test(path);
}
export type { Language } from './language.js';
