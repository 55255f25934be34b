import type { Page } from 'playwright-core';
import { AA, lowContrast } from './contrast.js';

/**
 * Text while the pointer is over it (WCAG 1.4.3 holds in every state): each button, link or other control that a
 * hover style may recolour, hovered for real, its text measured as contrast.ts measures any. One of each look is
 * hovered (the same classes, colours and backgrounds around it): /docs repeats the same few buttons hundreds of
 * times, and hovering each would take minutes.
 */

/** Runs in the page (a string made a function, as in contrast.ts): marks one element of each look; their count. */
const PICK = new Function(`return ([within, selector]) => {
  const around = (from) => {
    const seen = [];
    for (let node = from; node !== null; node = node.parentElement) seen.push(getComputedStyle(node).backgroundColor);
    return seen.join(' ');
  };
  const looks = new Set();
  let picked = 0;
  for (const root of document.querySelectorAll(within))
    for (const element of root.querySelectorAll(selector)) {
      const box = element.getBoundingClientRect();
      if (box.width === 0 || box.height === 0 || !element.checkVisibility() || element.disabled) continue;
      if (element.closest('[aria-hidden="true"]') !== null) continue;
      const style = getComputedStyle(element);
      const look = [element.tagName, element.className, style.color, around(element)].join('|');
      if (looks.has(look)) continue;
      looks.add(look);
      element.setAttribute('data-larder-hover', String(picked++));
    }
  return picked;
}`)() as (args: [string, string]) => number;

const UNPICK = new Function(`return () => {
  for (const element of document.querySelectorAll('[data-larder-hover]')) element.removeAttribute('data-larder-hover');
}`)() as () => void;

/** Ends every running transition (Swagger UI's buttons fade over 0.3 s), so what is read is where they settle. */
export const SETTLE =
  'for (const animation of document.getAnimations()) if (animation instanceof CSSTransition) animation.finish()';

/**
 * Hovers one of each look among what `selector` matches under `within`, and lists each piece of its text (its
 * own, its children's) under `minimum` while hovered. The pointer is moved away at the end.
 */
export const hoverProblems = async (
  page: Page,
  { within = 'body', selector = 'a[href], button, summary', minimum = AA } = {},
): Promise<string[]> => {
  const problems: string[] = [];
  const picked = await page.evaluate(PICK, [within, selector] as [string, string]);
  try {
    for (let index = 0; index < picked; index++) {
      const element = page.locator(`[data-larder-hover="${index}"]`);
      await element.hover();
      await page.evaluate(SETTLE);
      for (const low of await lowContrast(element, minimum))
        problems.push(`hovered: ${low.what} "${low.text}" ${low.ratio.toFixed(2)}:1`);
    }
  } finally {
    await page.mouse.move(0, 0);
    await page.evaluate(UNPICK);
  }
  return problems;
};
