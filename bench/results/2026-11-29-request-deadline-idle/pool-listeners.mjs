// node pool-listeners.mjs: pg.Pool queries with and without the acquire/release tracking postgres-store.ts adds.
import pg from 'pg';
const url = 'postgres://postgres@127.0.0.1:5432/test';
const mk = (tracked) => {
  const pool = new pg.Pool({ connectionString: url, max: 4 });
  if (tracked) { const inUse = new Set(); pool.on('acquire', (c) => inUse.add(c)); pool.on('release', (_e, c) => inUse.delete(c)); }
  return pool;
};
const pools = { off: mk(false), on: mk(true) };
const N = 5000;
const run = async (pool) => { const t0 = process.cpuUsage(); for (let i = 0; i < N; i += 4) await Promise.all([0,1,2,3].map(() => pool.query('SELECT 1'))); const d = process.cpuUsage(t0); return (d.user) / N; };
for (const p of Object.values(pools)) await run(p);
const res = { off: [], on: [] };
for (let r = 0; r < 12; r++) for (const k of (r % 2 ? ['off','on'] : ['on','off'])) res[k].push(await run(pools[k]));
for (const k of ['off','on']) { const s = res[k].sort((a,b)=>a-b); console.log(k, 'median user µs/query', s[6].toFixed(2), 'min', s[0].toFixed(2), 'max', s.at(-1).toFixed(2)); }
await Promise.all(Object.values(pools).map((p) => p.end()));
