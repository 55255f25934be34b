/**
 * Where the console keeps its colour theme (`system`, absent, `light` or `dark`) in localStorage. /docs, on the
 * same origin, reads it too, so the reference follows the console's choice.
 */
export const THEME_STORAGE_KEY = 'larder-theme';
