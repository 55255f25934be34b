import { createServer } from 'node:http';

/**
 * The limit: a bare node:http server that answers each request with the very bytes Larder answers it with
 * (same body, same content type), after reading the request body as Larder must. Routes arrive over IPC as
 * `{ routes: [["METHOD /path?query", body, contentType], …] }`; it replies `{ url }` when listening and `{ loaded }` after.
 */
const routes = new Map<string, { body: Buffer; contentType: string }>();

const server = createServer((request, response) => {
  const route = routes.get(`${request.method} ${request.url}`);
  request.resume();
  request.once('end', () => {
    if (route === undefined) {
      response.writeHead(404).end();
      return;
    }
    response.writeHead(200, { 'content-type': route.contentType, 'content-length': route.body.length });
    response.end(route.body);
  });
});
server.keepAliveTimeout = 65_000;

process.on('message', (message: { routes?: [string, string, string][] }) => {
  for (const [key, body, contentType] of message.routes ?? [])
    routes.set(key, { body: Buffer.from(body), contentType });
  process.send?.({ loaded: routes.size });
});
process.once('disconnect', () => process.exit(0));
server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  process.send?.({
    url: `http://127.0.0.1:${typeof address === 'object' && address !== null ? address.port : 0}`,
  });
});
