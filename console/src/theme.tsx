import { useEffect, useState } from 'preact/hooks';
import { THEME_STORAGE_KEY as THEME_KEY } from '../../src/shared/theme.js';

/** The colour theme: the system's (the default) or one chosen in the picker, which /docs follows too. */
export const THEMES = [
  ['system', 'System'],
  ['light', 'Light'],
  ['dark', 'Dark'],
] as const;

export type Theme = (typeof THEMES)[number][0];

const isTheme = (value: string | null): value is Theme => THEMES.some(([theme]) => theme === value);

/** Storage may be off (a browser setting, a sandboxed frame): the system's theme then, and no choice kept. */
export const readTheme = (): Theme => {
  try {
    const stored = localStorage.getItem(THEME_KEY);
    return isTheme(stored) ? stored : 'system';
  } catch {
    return 'system';
  }
};

/** The style sheet's `color-scheme` follows `data-theme`; without one it is `light dark`, the system's. */
export const applyTheme = (theme: Theme) => {
  if (theme === 'system') delete document.documentElement.dataset['theme'];
  else document.documentElement.dataset['theme'] = theme;
};

const storeTheme = (theme: Theme) => {
  try {
    if (theme === 'system') localStorage.removeItem(THEME_KEY);
    else localStorage.setItem(THEME_KEY, theme);
  } catch {
    // Kept for this page only.
  }
};

export const ThemePicker = () => {
  const [theme, setTheme] = useState(readTheme);
  // Another tab's choice arrives as a storage event (a tab never gets its own); a cleared storage (key null) too.
  useEffect(() => {
    const onStorage = (event: StorageEvent) => {
      if (event.key !== THEME_KEY && event.key !== null) return;
      const next = readTheme();
      applyTheme(next);
      setTheme(next);
    };
    addEventListener('storage', onStorage);
    return () => removeEventListener('storage', onStorage);
  }, []);
  return (
    <label class="theme-picker">
      <span class="theme-label">Colour theme</span>
      <select
        name="theme"
        value={theme}
        onChange={(e) => {
          const next = e.currentTarget.value as Theme;
          storeTheme(next);
          applyTheme(next);
          setTheme(next);
        }}
      >
        {THEMES.map(([value, label]) => (
          <option key={value} value={value}>
            {label}
          </option>
        ))}
      </select>
    </label>
  );
};
