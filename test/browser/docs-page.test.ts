import { pageTests } from '../helpers/docs-everything.js';

/** /docs's page in each theme, everything open: its text, focus and edges (see pageTests). */
pageTests();
