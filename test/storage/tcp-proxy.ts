import { connect, createServer, type Socket } from 'node:net';

/**
 * A TCP relay in front of PostgreSQL that a test can take down and bring back: a database outage without
 * stopping the shared server other tests use.
 */
export interface TcpProxy {
  port: number;
  /** Refuses new connections and cuts every open one, as a server crash would. */
  down(): Promise<void>;
  up(): Promise<void>;
  /**
   * Goes silent, as a firewall that dropped its state does: open connections stay open but nothing passes either
   * way, ever again, and new connections are accepted and then ignored. No reset reaches either side.
   */
  blackhole(): void;
  /** New connections are forwarded again (the silent ones stay silent, as after a real failover). */
  forward(): void;
  close(): Promise<void>;
}

export const startTcpProxy = async (targetHost: string, targetPort: number): Promise<TcpProxy> => {
  const sockets = new Set<Socket>();
  const silenced = new Set<() => void>();
  let silent = false;
  const server = createServer((downstream) => {
    sockets.add(downstream);
    downstream.on('close', () => sockets.delete(downstream));
    downstream.on('error', () => downstream.destroy());
    if (silent) {
      downstream.pause();
      return;
    }
    const upstream = connect(targetPort, targetHost);
    for (const socket of [downstream, upstream]) {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
      socket.on('error', () => {
        downstream.destroy();
        upstream.destroy();
      });
    }
    downstream.pipe(upstream).pipe(downstream);
    silenced.add(() => {
      downstream.unpipe(upstream);
      upstream.unpipe(downstream);
      downstream.pause();
      upstream.pause();
    });
  });
  const listen = (port: number) =>
    new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => {
        server.off('error', reject);
        resolve();
      });
    });
  const down = () =>
    new Promise<void>((resolve) => {
      server.close(() => resolve());
      for (const socket of sockets) socket.destroy();
    });

  await listen(0);
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('proxy has no port');
  const { port } = address;
  return {
    port,
    down,
    up: () => listen(port),
    blackhole: () => {
      silent = true;
      for (const silence of silenced) silence();
      silenced.clear();
    },
    forward: () => {
      silent = false;
    },
    close: () => (server.listening ? down() : Promise.resolve()),
  };
};
