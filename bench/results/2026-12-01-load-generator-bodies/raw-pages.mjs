// A raw node:http server answering each path with one saved page (the files given as PATH=FILE arguments), so
// the load generator can be measured alone: node raw-pages.mjs 18232 /a=page.json /u=unicode.json
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';

const [port, ...routes] = process.argv.slice(2);
const bodies = new Map(routes.map((route) => route.split('=')).map(([path, file]) => [path, readFileSync(file)]));
createServer((request, response) => {
  request.resume();
  request.once('end', () => {
    const body = bodies.get(request.url);
    if (body === undefined) return response.writeHead(404).end();
    response.writeHead(200, { 'content-type': 'application/json', 'content-length': body.length });
    response.end(body);
  });
}).listen(Number(port), '127.0.0.1');
