/**
 * What the cheat detectors need to know about one language's tests and escape hatches. Adding a language
 * (or a marker) is a change to one file in this folder and, for a new language, one line in the registry.
 */
export interface Language {
  name: string;
  /** Source files of this language, by path. */
  files: RegExp;
  /** Test files among them. */
  testFile: RegExp;
  /** A line declaring a test case; group 1 is its name when the syntax gives one. */
  testCase: RegExp[];
  /** One assertion call per match. */
  assertion: RegExp;
  /** Assertions with named groups `subject`, `matcher` and `expected`, for pairing an edit's before and after. */
  expectation: RegExp[];
  /** Matchers that say less than an equality (`toBeDefined`, a bare truthiness `assert`). */
  weakMatcher: RegExp;
  /** Markers that skip, focus or defer tests. */
  skipMarkers: RegExp[];
  /** Assertions that cannot fail. */
  tautologies: RegExp[];
  /** Comments and attributes that silence a linter or the type checker. */
  escapes: RegExp[];
  /** Statements that stand in for behaviour. */
  notImplemented: RegExp[];
  /** A line that is only a placeholder statement in a body (`pass`, `return None`, …). */
  placeholderStatement: RegExp;
  /** A function header whose parameters are in group 1 (for hard-coded return checks). */
  functionHeader: RegExp;
  /** A line comment marker, for telling comments from code. */
  comment: RegExp;
}
