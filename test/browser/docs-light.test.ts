import { pageTests } from '../helpers/docs-everything.js';

/** /docs's page in the light theme, everything open: its text, focus and edges (see pageTests). */
pageTests('light');
