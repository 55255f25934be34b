import { dialogTests } from '../helpers/docs-everything.js';

/** /docs in the light theme, everything open: the Authorize dialog, hover states and drawn edges (see dialogTests). */
dialogTests('light');
