/**
 * Where the console keeps its colour theme (`system`, absent, `light` or `dark`) in localStorage. /docs, on the
 * same origin, reads it too, so the reference follows the console's choice.
 */
export const THEME_STORAGE_KEY = 'larder-theme';

/**
 * A function, as script text, that answers the stored choice, `'light'` or `'dark'`, else null (the system's, and
 * when storage is off): for the inline scripts that set a page's theme before its first paint, /docs's and the
 * console's.
 */
export const STORED_THEME_FUNCTION = `() => {
  try {
    const theme = localStorage.getItem(${JSON.stringify(THEME_STORAGE_KEY)});
    return theme === 'light' || theme === 'dark' ? theme : null;
  } catch {
    return null;
  }
}`;

/**
 * The console's inline script: the chosen theme on the root's `data-theme`, as console/src/theme.tsx sets it, before
 * the first paint. Without a choice, no attribute: the style sheet follows the system.
 */
export const CONSOLE_THEME_SCRIPT = `(() => {
  const theme = (${STORED_THEME_FUNCTION})();
  if (theme !== null) document.documentElement.dataset.theme = theme;
})();`;
