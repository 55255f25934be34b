import { connect } from 'node:net';

/** Sends `text` as is on a new connection to 127.0.0.1:`port` and resolves with all the server wrote back. */
export const rawExchange = (port: number, text: string) =>
  new Promise<string>((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.end(text));
    let answer = '';
    socket.on('data', (chunk) => {
      answer += chunk.toString();
    });
    socket.on('end', () => resolve(answer));
    socket.on('error', reject);
  });
