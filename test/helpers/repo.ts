import { basename, join } from 'node:path';

/**
 * The repository's root. `npm test` runs the tests compiled, from .test-build/ (scripts/build-tests.mjs), where the
 * files tests read or spawn (docs, bin, the sources, the bench) are not copied, so their paths start here rather
 * than at a test's own `import.meta.dirname`.
 */
const above = join(import.meta.dirname, '..', '..');
export const REPO = basename(above) === '.test-build' ? join(above, '..') : above;
