import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { describe, expect, onTestFinished } from 'vitest';
import { parseEndpoint } from '../../src/sandbox/endpoint.js';
import { type BoxOptions, hiddenToolPaths, Sandbox } from '../../src/sandbox/sandbox.js';
import { gitdir } from '../helpers/gitdir.js';
import { sandboxIt, sandboxSupport } from '../helpers/needs-sandbox.js';

async function setup(extra: Partial<ConstructorParameters<typeof Sandbox>[0]> = {}) {
  const root = await gitdir({ 'a.txt': 'a\n' });
  const home = await mkdtemp(join(tmpdir(), 'star-loop-home-'));
  await mkdir(join(home, '.ssh'));
  await writeFile(join(home, '.ssh', 'id_ed25519'), 'PRIVATE KEY\n');
  await mkdir(join(home, '.agent'));
  const outside = await mkdtemp(join(tmpdir(), 'star-loop-outside-'));
  const sandbox = new Sandbox({
    bwrap: sandboxSupport.bwrap ?? 'bwrap',
    root,
    gitDir: join(root, '.git'),
    keepReadOnly: [],
    network: 'filtered',
    allowHosts: [],
    allowWrite: [],
    dependencyDirs: [],
    env: { HOME: home, PATH: process.env.PATH },
    ...extra,
  });
  return { root, home, outside, sandbox };
}

/** Runs `sh -c script` in a box; returns its exit code and output. */
async function inBox(sandbox: Sandbox, options: BoxOptions, script: string, env: Record<string, string> = {}) {
  const box = await sandbox.box(options);
  const run = box.wrap({ command: 'sh', args: ['-c', script], env: { ...process.env, ...env } });
  const result = await execa(run.command, run.args, { env: run.env, reject: false, timeout: 30_000 });
  const closed = await box.close();
  return { ...result, denied: closed.denied };
}

const marker = () => `star-loop-sbx-${Math.random().toString(36).slice(2)}`;
/** Host processes whose command line holds `text` (zombies aside). */
const alive = (text: string) =>
  readdirSync('/proc')
    .filter((p) => /^\d+$/.test(p))
    .filter((p) => {
      try {
        return (
          readFileSync(`/proc/${p}/cmdline`, 'utf8').includes(text) &&
          !/ [ZX] /.test(readFileSync(`/proc/${p}/stat`, 'utf8'))
        );
      } catch {
        return false;
      }
    });

describe('the sandbox (bubblewrap), for real', () => {
  sandboxIt('every process started inside ends with it: setsid, SIGTERM ignored, in the background', async () => {
    const { sandbox } = await setup();
    const tag = marker();
    const result = await inBox(
      sandbox,
      { treeWritable: true },
      `setsid sh -c 'trap "" TERM HUP; exec sleep 300 ${tag}' </dev/null >/dev/null 2>&1 & sh -c 'sleep 301 ${tag}' & echo started`,
    );
    expect(result.stdout).toContain('started');
    expect(alive(tag)).toEqual([]);
  });

  sandboxIt('when a sandboxed process ends, nothing it started writes in the tree any more', async () => {
    const { root, sandbox } = await setup();
    const result = await inBox(
      sandbox,
      { treeWritable: true },
      `setsid sh -c 'trap "" TERM HUP; while :; do echo x >> w.txt; done' </dev/null >/dev/null 2>&1 &
       until [ -s w.txt ]; do :; done; echo started`,
    );
    expect(result.stdout).toContain('started');
    const size = readFileSync(join(root, 'w.txt')).length;
    await new Promise((r) => setTimeout(r, 300));
    expect(readFileSync(join(root, 'w.txt')).length).toBe(size);
  });

  sandboxIt(
    'writes only in the work tree: not .git, not outside, not $HOME (a scratch that vanishes); keys unreadable',
    async () => {
      const { sandbox, root, home, outside } = await setup();
      const result = await inBox(
        sandbox,
        { treeWritable: true, homeWritable: [join(home, '.agent')] },
        [
          'echo ok > work.txt && echo tree-ok',
          'echo x > .git/evil 2>/dev/null || echo git-ro',
          `echo x > ${outside}/evil 2>/dev/null || echo outside-ro`,
          `echo x > ${home}/.gitconfig && echo home-scratch`,
          `cat ${home}/.ssh/id_ed25519 2>/dev/null || echo key-unreadable`,
          `echo state > ${home}/.agent/s && echo agent-dir-ok`,
        ].join('; '),
      );
      expect(result.stdout.split('\n')).toEqual([
        'tree-ok',
        'git-ro',
        'outside-ro',
        'home-scratch',
        'key-unreadable',
        'agent-dir-ok',
      ]);
      expect(await readFile(join(root, 'work.txt'), 'utf8')).toBe('ok\n');
      expect(existsSync(join(root, '.git', 'evil'))).toBe(false);
      expect(existsSync(join(outside, 'evil'))).toBe(false);
      expect(existsSync(join(home, '.gitconfig'))).toBe(false);
      expect(await readFile(join(home, '.agent', 's'), 'utf8')).toBe('state\n');
    },
  );

  sandboxIt(
    'the network reaches only allowed hosts: a forwarded local port and the proxy; anything else is refused',
    async () => {
      const server = createServer((_req, res) => res.end('hello from the host'));
      await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
      const other = createServer((_req, res) => res.end('should not be reached'));
      await new Promise<void>((r) => other.listen(0, '127.0.0.1', () => r()));
      onTestFinished(() => {
        server.close();
        other.close();
      });
      const port = (server.address() as AddressInfo).port;
      const blocked = (other.address() as AddressInfo).port;
      const { sandbox } = await setup();
      const client = (p: number) =>
        `node -e "require('http').get('http://127.0.0.1:${p}/',r=>{let d='';r.on('data',c=>d+=c);r.on('end',()=>console.log(d))}).on('error',e=>console.log('refused'))"`;
      const viaProxy = (target: string) =>
        `node -e "const r=require('http').request({host:'127.0.0.1',port:process.env.HTTPS_PROXY.split(':')[2],method:'CONNECT',path:'${target}'});r.on('connect',res=>{console.log('proxy '+res.statusCode);process.exit(0)});r.on('error',()=>console.log('proxy error'));r.end()"`;
      const result = await inBox(
        sandbox,
        { treeWritable: true, hosts: [parseEndpoint(`127.0.0.1:${port}`) as { host: string; port: number }] },
        [client(port), client(blocked), viaProxy(`github.com:443`), viaProxy(`127.0.0.1:${blocked}`)].join('; '),
      );
      expect(result.stdout.split('\n')).toEqual(['hello from the host', 'refused', 'proxy 403', 'proxy 403']);
      expect(result.denied.sort()).toEqual([`127.0.0.1:${blocked}`, 'github.com:443'].sort());
    },
  );

  sandboxIt('no network at all for a gate: not even loopback ports of the host', async () => {
    const server = createServer((_req, res) => res.end('host'));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    onTestFinished(() => {
      server.close();
    });
    const port = (server.address() as AddressInfo).port;
    const { sandbox } = await setup();
    const result = await inBox(
      sandbox,
      { treeWritable: true },
      `node -e "require('http').get('http://127.0.0.1:${port}/',()=>console.log('reached')).on('error',()=>console.log('no network'))"`,
    );
    expect(result.stdout).toBe('no network');
  });

  sandboxIt(
    'a throw-away tree is seen at the work tree’s path, with the real dependencies read-only inside it',
    async () => {
      const { sandbox, root } = await setup({ dependencyDirs: ['node_modules'] });
      await mkdir(join(root, 'node_modules'));
      await writeFile(join(root, 'node_modules', 'dep.js'), 'trusted\n');
      const tree = await mkdtemp(join(tmpdir(), 'star-loop-tree-'));
      await writeFile(join(tree, 'claimed.txt'), 'the claimed commit\n');
      const result = await inBox(
        sandbox,
        { tree, treeWritable: true },
        `pwd; cat claimed.txt; cat node_modules/dep.js; echo x > node_modules/dep.js 2>/dev/null || echo deps-ro; ls a.txt 2>/dev/null || echo real-tree-hidden`,
      );
      expect(result.stdout.split('\n')).toEqual([root, 'the claimed commit', 'trusted', 'deps-ro', 'real-tree-hidden']);
    },
  );

  sandboxIt(
    'tools the run needs from /tmp or $HOME are seen read-only: PATH folders, the agent command’s script',
    async () => {
      const { root, home, outside } = await setup();
      const bin = join(outside, 'node_modules', '.bin');
      await mkdir(bin, { recursive: true });
      await writeFile(join(outside, 'node_modules', 'tool.sh'), 'echo tool ran\n');
      const script = join(home, 'bin-agent.sh');
      await writeFile(script, 'echo agent ran\n');
      const env = { HOME: home, PATH: `${bin}:/usr/local/bin:/usr/bin:/bin` };
      const visible = hiddenToolPaths(env, root, `sh ${script} --flag`);
      // node_modules/.bin: the whole node_modules (its links point there); from $HOME the script, not its folder.
      expect(visible).toEqual([join(outside, 'node_modules'), script].sort());
      expect(hiddenToolPaths({ ...env, PATH: `/tmp:${root}/node_modules/.bin` }, root, `sh ${root}/x.sh`)).toEqual([]);
      const { sandbox } = await setup({ root, env, visible });
      const run = await inBox(
        sandbox,
        { treeWritable: true },
        `sh ${join(outside, 'node_modules', 'tool.sh')}; sh ${script}; cat ${home}/.ssh/id_ed25519 2>&1 || true; ` +
          `touch ${script} 2>&1 || true`,
      );
      expect(run.stdout).toContain('tool ran');
      expect(run.stdout).toContain('agent ran');
      expect(run.stdout).not.toContain('PRIVATE KEY');
      expect(run.stdout).toMatch(/Read-only file system/);
    },
  );
});
