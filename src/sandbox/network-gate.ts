import { mkdtemp, rm } from 'node:fs/promises';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { allows, type Endpoint, isLoopback, showEndpoint } from './endpoint.js';

const MAX_HEAD = 64 * 1024;

/**
 * The sandbox's only way out, on the host side: Unix sockets in a folder of their own that the sandbox sees.
 * `proxy.sock` speaks an HTTP proxy (CONNECT, and plain http in absolute form) that lets through only the
 * allowed endpoints; `port-N.sock` forwards to 127.0.0.1:N for each allowed loopback endpoint (a local model
 * server). Inside the sandbox, with no network of its own, socat listens on loopback and passes to them.
 */
export class NetworkGate {
  private readonly servers: Server[] = [];
  private readonly sockets = new Set<Socket>();
  /** Endpoints something in the sandbox asked for and was refused. */
  readonly denied = new Set<string>();

  private constructor(
    readonly dir: string,
    readonly allowed: readonly Endpoint[],
  ) {}

  /** Loopback endpoints (forwarded port by port) and the rest (through the proxy). */
  get forwardedPorts(): number[] {
    return [...new Set(this.allowed.filter((e) => isLoopback(e.host)).map((e) => e.port))];
  }

  static async open(allowed: readonly Endpoint[]): Promise<NetworkGate> {
    const gate = new NetworkGate(await mkdtemp(join(tmpdir(), 'star-loop-net-')), allowed);
    await gate.listen(join(gate.dir, 'proxy.sock'), (socket) => gate.proxy(socket));
    for (const port of gate.forwardedPorts) {
      await gate.listen(join(gate.dir, `port-${port}.sock`), (socket) => gate.pipe(socket, '127.0.0.1', port));
    }
    return gate;
  }

  private listen(path: string, onConnection: (socket: Socket) => void): Promise<void> {
    const server = createServer((socket) => {
      this.sockets.add(socket);
      socket.once('close', () => this.sockets.delete(socket));
      socket.on('error', () => socket.destroy());
      onConnection(socket);
    });
    this.servers.push(server);
    return new Promise((resolve, reject) => {
      server.once('error', reject);
      server.listen(path, () => resolve());
    });
  }

  private pipe(socket: Socket, host: string, port: number, head?: Buffer, reply?: string): void {
    const upstream = connect({ host, port });
    this.sockets.add(upstream);
    upstream.once('close', () => this.sockets.delete(upstream));
    upstream.once('connect', () => {
      if (reply) socket.write(reply);
      if (head?.length) upstream.write(head);
      socket.pipe(upstream);
      upstream.pipe(socket);
    });
    upstream.on('error', () => {
      if (reply && !socket.destroyed) socket.end('HTTP/1.1 502 Bad Gateway\r\n\r\n');
      socket.destroy();
    });
    socket.on('close', () => upstream.destroy());
  }

  /** One proxied connection: its request head decides where it may go. */
  private proxy(socket: Socket): void {
    let buffered = Buffer.alloc(0);
    const onData = (chunk: Buffer) => {
      buffered = Buffer.concat([buffered, chunk]);
      const end = buffered.indexOf('\r\n\r\n');
      if (end < 0) {
        if (buffered.length > MAX_HEAD) socket.destroy();
        return;
      }
      socket.off('data', onData);
      socket.pause();
      const head = buffered.subarray(0, end).toString('latin1');
      const rest = buffered.subarray(end + 4);
      this.route(socket, head, rest);
    };
    socket.on('data', onData);
  }

  private route(socket: Socket, head: string, rest: Buffer): void {
    const [line = '', ...headers] = head.split('\r\n');
    const [method = '', target = ''] = line.split(' ');
    const refuse = (where: string) => {
      this.denied.add(where);
      socket.end('HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\nConnection: close\r\n\r\n');
    };
    if (method === 'CONNECT') {
      const m = /^(\[[^\]]+\]|[^:]+):(\d+)$/.exec(target);
      const host = m?.[1]?.replace(/^\[|\]$/g, '') ?? '';
      const port = Number(m?.[2] ?? 0);
      if (!m || !allows(this.allowed, host, port)) {
        refuse(target);
        return;
      }
      socket.resume();
      this.pipe(socket, host, port, rest, 'HTTP/1.1 200 Connection Established\r\n\r\n');
      return;
    }
    let url: URL;
    try {
      url = new URL(target);
    } catch {
      refuse(target);
      return;
    }
    const port = url.port ? Number(url.port) : url.protocol === 'https:' ? 443 : 80;
    const host = url.hostname.replace(/^\[|\]$/g, '');
    if (url.protocol !== 'http:' || !allows(this.allowed, host, port)) {
      refuse(showEndpoint({ host, port }));
      return;
    }
    // Plain http through the proxy: the request goes on in origin form.
    const origin = `${method} ${url.pathname}${url.search} ${line.split(' ')[2] ?? 'HTTP/1.1'}`;
    const request = Buffer.concat([Buffer.from([origin, ...headers, '', ''].join('\r\n'), 'latin1'), rest]);
    socket.resume();
    this.pipe(socket, host, port, request);
  }

  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await Promise.all(this.servers.map((s) => new Promise<void>((resolve) => s.close(() => resolve()))));
    await rm(this.dir, { recursive: true, force: true });
  }
}
