import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { runNode } from '../../../test/helpers/cli.js';
import { REPO } from '../../../test/helpers/repo.js';

/**
 * Every TypeScript example of the READMEs type-checks as a user's project compiles it: the built package imported
 * by its name, the strictest common settings (`exactOptionalPropertyTypes`, `noUncheckedIndexedAccess`), no DOM
 * library (a Node project) and the package's declarations checked too. Each example gets, ahead of it, only what
 * it leaves to the reader (the `larder` it uses, the records it loads), declared by type.
 */

const PACKAGE = join(REPO, 'packages', 'client');
const ROOT = join(PACKAGE, '..', '..');

const blocks = async (readme: string) =>
  [...(await readFile(readme, 'utf8')).matchAll(/```ts\n([\s\S]*?)```/g)].map((match) => match[1] ?? '');

/** What each example leaves to the reader, in the order the examples stand. */
const CLIENT_README = [
  '',
  `import type { InventoryHistoryLogEntry, LarderClient } from '@larder/client';
declare const larder: LarderClient;
declare function upsert(entry: InventoryHistoryLogEntry): void;
`,
  `import type { PurchaseOrder } from '@larder/client';
declare const orders: PurchaseOrder[];
`,
  `import type { LarderSandbox } from '@larder/client';
declare const sandbox: LarderSandbox;
`,
];
const MAIN_README = [
  `import type { InventoryHistoryLogEntry, Watermark } from '@larder/client';
declare const clientId: string, clientSecret: string;
declare const savedWatermark: Watermark | undefined;
declare function save(entry: InventoryHistoryLogEntry): void;
declare function saveWatermark(watermark: Watermark | undefined): void;
`,
];

test("the READMEs' TypeScript examples type-check in a strict Node project importing the built package", async () => {
  const examples = [
    ...(await blocks(join(PACKAGE, 'README.md'))).map((code, n) => ({ code, prelude: CLIENT_README[n] })),
    ...(await blocks(join(ROOT, 'README.md'))).map((code, n) => ({ code, prelude: MAIN_README[n] })),
  ];
  assert.equal(
    examples.length,
    CLIENT_README.length + MAIN_README.length,
    'a new example needs its prelude here',
  );
  // Inside the package (in a directory git ignores), so that `@larder/client` resolves as a dependency does.
  const dir = await mkdtemp(join(PACKAGE, '.larder-test-readme-'));
  try {
    await Promise.all(
      examples.map(({ code, prelude }, n) => writeFile(join(dir, `example-${n}.mts`), `${prelude}${code}`)),
    );
    await writeFile(
      join(dir, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          target: 'ES2022',
          lib: ['ES2022'],
          module: 'nodenext',
          moduleResolution: 'nodenext',
          strict: true,
          exactOptionalPropertyTypes: true,
          noUncheckedIndexedAccess: true,
          skipLibCheck: false,
          noEmit: true,
          types: ['node'],
          typeRoots: [join(ROOT, 'node_modules', '@types')],
        },
        include: ['*.mts'],
      }),
    );
    const tsc = await runNode([join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', dir]);
    assert.equal(tsc.code, 0, tsc.stdout + tsc.stderr);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
