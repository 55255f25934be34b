import { Worker, type WorkerOptions } from 'node:worker_threads';

/** A worker module next to `from`: .ts when running from source (tests, benches), .js in the built dist. */
export const siblingModule = (from: string, name: string): URL =>
  new URL(`./${name}${from.endsWith('.ts') ? '.ts' : '.js'}`, from);

/** Starts a worker thread on `script`, compiled or TypeScript source. */
export const startWorker = (script: URL, options: WorkerOptions): Worker => {
  if (!script.pathname.endsWith('.ts')) return new Worker(script, options);
  // Node 20 does not apply `--import tsx` to a worker's entry module, so the worker registers tsx itself first.
  const tsx = import.meta.resolve('tsx/esm/api');
  const bootstrap = `import(${JSON.stringify(tsx)}).then((tsx) => { tsx.register(); return import(${JSON.stringify(script.href)}); });`;
  return new Worker(bootstrap, { ...options, eval: true });
};
