import { dialogTests } from '../helpers/docs-everything.js';

/** /docs in each theme: the Authorize dialog, hover states and drawn edges, one operation open (see dialogTests). */
dialogTests();
