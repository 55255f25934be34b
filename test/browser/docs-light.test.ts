import { everythingTests } from '../helpers/docs-everything.js';

/** /docs's accessibility in the light theme, everything open: see everythingTests. */
everythingTests('light');
