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
  /**
   * Resolves once `connections` connections have sent something into the silence (a query on an open one, the
   * startup of a new one): that many callers are then waiting on the database.
   */
  heard(connections: number): Promise<void>;
  /** New connections are forwarded again (the silent ones stay silent, as after a real failover). */
  forward(): void;
  close(): Promise<void>;
}

export const startTcpProxy = async (targetHost: string, targetPort: number): Promise<TcpProxy> => {
  const sockets = new Set<Socket>();
  const silenced = new Set<() => void>();
  let silent = false;
  const speakers = new Set<Socket>();
  const listeners = new Set<() => void>();
  /** Reads what `socket` sends from now on and answers nothing: a peer that takes requests and never replies. */
  const ignore = (socket: Socket): void => {
    socket.on('data', () => {
      speakers.add(socket);
      for (const listener of listeners) listener();
    });
    socket.resume();
  };
  const server = createServer((downstream) => {
    sockets.add(downstream);
    downstream.on('close', () => sockets.delete(downstream));
    downstream.on('error', () => downstream.destroy());
    if (silent) {
      ignore(downstream);
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
      upstream.pause();
      ignore(downstream);
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
    heard: (connections) =>
      new Promise<void>((resolve) => {
        const check = () => {
          if (speakers.size < connections) return;
          listeners.delete(check);
          resolve();
        };
        listeners.add(check);
        check();
      }),
    forward: () => {
      silent = false;
    },
    close: () => (server.listening ? down() : Promise.resolve()),
  };
};
