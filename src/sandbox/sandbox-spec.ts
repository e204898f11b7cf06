/**
 * What one sandboxed process may see and do, as data (src/sandbox/bwrap-args.ts turns it into bubblewrap's
 * arguments). Everything is read-only but what `writable` names; the process has its own PID namespace, so
 * everything it starts ends with it.
 */
export interface SandboxSpec {
  /** Where the process works (its cwd), as it sees it. */
  root: string;
  /** The host folder mounted at `root` (a throw-away worktree for gates and the verifier); `root` itself if absent. */
  tree?: string;
  /** Whether `root` (the tree) is writable. */
  treeWritable: boolean;
  /** Mounted read-only over the tree (its git directory, protected files, dependencies), host path → sandbox path. */
  readOnly: ReadonlyArray<{ from: string; to: string }>;
  /** Writable beside the tree (the agent's own config dirs, --sandbox-allow-write, TMPDIR), host = sandbox path. */
  writable: readonly string[];
  /** $HOME: replaced by an empty scratch folder whose writes vanish, `homeReadOnly` and `homeWritable` bound in. */
  home?: string;
  homeReadOnly: readonly string[];
  homeWritable: readonly string[];
  /** Files that read as empty (credential files inside bound folders). */
  hidden: readonly string[];
  /** The scratch folder mounted at `root/.star` (the agent's claim, plan and verdict go there). */
  starScratch?: string;
  network:
    | { mode: 'none' }
    | { mode: 'open' }
    /** Through the network gate: `dir` holds its sockets; inside, socat listens on `proxyPort` and forwarded ports. */
    | { mode: 'filtered'; dir: string; proxyPort: number; forwardedPorts: readonly number[] };
}
