import { constants } from 'node:fs';
import { access, chmod, mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

const HOOKS = [
  'applypatch-msg',
  'pre-applypatch',
  'post-applypatch',
  'pre-commit',
  'pre-merge-commit',
  'prepare-commit-msg',
  'commit-msg',
  'post-commit',
  'pre-rebase',
  'post-checkout',
  'post-merge',
  'pre-receive',
  'update',
  'post-receive',
  'post-update',
  'reference-transaction',
  'push-to-checkout',
  'pre-auto-gc',
  'post-rewrite',
  'sendemail-validate',
  'post-index-change',
];
/** Push URLs are rewritten to a scheme no git can speak, so a push fails even with `--no-verify`. */
const PUSH_PREFIXES = ['https://', 'http://', 'ssh://', 'git://', 'file://', 'git@', '/', '.'];
export const BLOCKED_SCHEME = 'star-loop-push-blocked::';

/**
 * Writes `.star/hooks/` afresh: a pre-push hook that refuses, and for each hook the repository has (an
 * executable in `originalHooks`) a wrapper that runs it, so the agent's commits still go through the
 * project's hooks. A hook the repository does not have gets no wrapper: git then starts no process for it
 * (a commit fires up to six hooks; empty wrappers cost the agent a shell each, ~7 ms a commit).
 */
export async function writePushBlockingHooks(dir: string, originalHooks: string): Promise<void> {
  await rm(dir, { recursive: true, force: true });
  await mkdir(dir, { recursive: true });
  const present = await Promise.all(
    HOOKS.map((name) =>
      access(join(originalHooks, name), constants.X_OK).then(
        () => name,
        () => undefined,
      ),
    ),
  );
  // chmod, not writeFile's mode: the umask filters that, and git silently skips a hook it cannot execute.
  const write = async (name: string, text: string) => {
    await writeFile(join(dir, name), text);
    await chmod(join(dir, name), 0o755);
  };
  await Promise.all([
    ...present
      .filter((name) => name !== undefined)
      .map((name) => {
        const hook = join(originalHooks, name);
        // Checked again when it runs: the hook may be gone by then.
        return write(name, `#!/bin/sh\n[ -x "${hook}" ] || exit 0\nexec "${hook}" "$@"\n`);
      }),
    write(
      'pre-push',
      '#!/bin/sh\necho "star-loop: git push is blocked while a loop runs (star-loop --allow-push permits it)" ' +
        '>&2\nexit 1\n',
    ),
  ]);
}

/**
 * Git configuration for the agent's environment, through git's GIT_CONFIG_COUNT/KEY/VALUE variables (added
 * after any the user already set): hooks from `hooksDir`, and every push URL rewritten to a blocked scheme.
 */
export function pushBlockingEnv(env: NodeJS.ProcessEnv, hooksDir: string): Record<string, string> {
  const start = Number(env.GIT_CONFIG_COUNT ?? 0) || 0;
  const entries: Array<[string, string]> = [
    ['core.hooksPath', hooksDir],
    ...PUSH_PREFIXES.map((p): [string, string] => [`url.${BLOCKED_SCHEME}${p}.pushInsteadOf`, p]),
  ];
  const out: Record<string, string> = { GIT_CONFIG_COUNT: String(start + entries.length) };
  entries.forEach(([key, value], i) => {
    out[`GIT_CONFIG_KEY_${start + i}`] = key;
    out[`GIT_CONFIG_VALUE_${start + i}`] = value;
  });
  return out;
}
