/**
 * Where the console keeps its colour theme (`system`, absent, `light` or `dark`) in localStorage. /docs, on the
 * same origin, reads it too, so the reference follows the console's choice.
 */
export const THEME_STORAGE_KEY = 'larder-theme';

/**
 * A function, as script text, that answers the stored choice, `'light'` or `'dark'`, else null (the system's, and
 * when storage is off): for the inline scripts that set a page's theme before its first paint.
 */
export const STORED_THEME_FUNCTION = `() => {
  try {
    const theme = localStorage.getItem(${JSON.stringify(THEME_STORAGE_KEY)});
    return theme === 'light' || theme === 'dark' ? theme : null;
  } catch {
    return null;
  }
}`;
