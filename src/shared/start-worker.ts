import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Worker, type WorkerOptions } from 'node:worker_threads';

/**
 * The compiled worker module `name` next to `from`. Workers always run compiled JavaScript, never through a
 * TypeScript loader: from dist/ that is the sibling file; from source (tests and benches under tsx) it is the
 * same module in dist/, which `npm run build` makes before the tests run.
 */
export const siblingModule = (from: string, name: string): URL => {
  const sibling = new URL(`./${name}.js`, from);
  if (!from.endsWith('.ts')) return sibling;
  const at = sibling.href.lastIndexOf('/src/');
  return new URL(`${sibling.href.slice(0, at)}/dist/${sibling.href.slice(at + '/src/'.length)}`);
};

/** Starts a worker thread on a compiled module, saying plainly when it has not been built. */
export const startWorker = (script: URL, options: WorkerOptions): Worker => {
  if (script.protocol === 'file:' && !existsSync(fileURLToPath(script)))
    throw new Error(`Worker module ${fileURLToPath(script)} is missing: run \`npm run build\` first.`);
  return new Worker(script, options);
};
