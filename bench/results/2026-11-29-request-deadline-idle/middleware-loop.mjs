// node middleware-loop.mjs BASE_CHECKOUT HEAD_CHECKOUT (each built: npm run build)
import { resolve } from 'node:path';
const module = (checkout) => import(resolve(checkout, 'dist/middleware/request-deadline/request-deadline.js'));
const [base, head] = await Promise.all(process.argv.slice(2, 4).map(module));
const c = { req: { path: '/retail/v1/purchase-orders/x' } };
const next = () => Promise.resolve();
const mk = {
  base: () => { const t = base.requestDeadline(30000); return (cc, n) => cc.req.path.startsWith('/_larder/') ? n() : t(cc, n); },
  head: () => head.requestDeadline(30000, (cc) => cc.req.path.startsWith('/_larder/')),
};
const N = 200000;
const run = async (h) => { const t0 = process.hrtime.bigint(); for (let i = 0; i < N; i++) await h(c, next); return Number(process.hrtime.bigint() - t0) / N; };
const res = { base: [], head: [] };
for (let r = 0; r < 10; r++) for (const k of (r % 2 ? ['base','head'] : ['head','base'])) res[k].push(await run(mk[k]()));
for (const k of ['base','head']) { const s = res[k].slice(2).sort((a,b)=>a-b); console.log(k, 'median ns/request', s[Math.floor(s.length/2)].toFixed(0), s.map(x=>x.toFixed(0)).join(' ')); }
