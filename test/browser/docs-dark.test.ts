import { everythingTests } from '../helpers/docs-everything.js';

/** /docs's accessibility in the dark theme, everything open: see everythingTests. */
everythingTests('dark');
