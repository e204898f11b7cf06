import { execa } from 'execa';

/** Runs a command with the terminal attached (the demo's star-loop run); resolves to its exit code. */
export async function runAttached(command: string, args: string[], cwd: string): Promise<number> {
  const result = await execa(command, args, { cwd, stdio: 'inherit', reject: false });
  return result.exitCode ?? 1;
}
