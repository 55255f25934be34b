import type { Page } from 'playwright-core';
import {
  backdrop,
  contrastRatio,
  hex,
  NON_TEXT,
  over,
  parseColour,
  type Rgba,
  weakBoundaries,
} from './contrast.js';

/**
 * Keyboard focus, as WCAG 2.4.7 and 1.4.11 ask: Tab reaches every control, each shows an indicator when focused
 * (an outline, a box-shadow or a border that changes from its unfocused look), and that indicator's colour reaches
 * 3:1 against what lies next to it. Read from the styles the browser computed. An `outline-style: auto` ring is
 * measured by its computed colour: Chromium draws a light halo around it too, other browsers do not.
 */

/** What the page computed for an element: the parts that can show focus, and the backgrounds around them. */
interface Look {
  what: string;
  outline: { style: string; width: number; colour: string; offset: number };
  shadow: string;
  border: { widths: string; colours: string; style: string };
  /** Background colours from the element up to the root, and from its parent up. */
  inside: string[];
  outside: string[];
  scheme: string;
}

/**
 * Runs in the page, as part of STEP below: a string, so the test's transpiler adds nothing to it (see contrast.ts).
 * Also notes the element as reached, for `unreached`, and ends its transitions.
 */
const LOOK = `(element) => {
  (globalThis.larderReached ??= new WeakSet()).add(element);
  // As it settles: a style sheet may fade its outline in or out (Swagger UI's buttons take 0.3 s), or grow a parent
  // that holds it (an operation's copy button widens from 0 as its summary takes the focus, over 0.5 s): every
  // transition in the page, not only the element's own. Ended at once, rather than waited for: always finite, they
  // end where they would.
  for (const animation of document.getAnimations()) if (animation instanceof CSSTransition) animation.finish();
  const style = getComputedStyle(element);
  const layers = (from) => {
    const seen = [];
    for (let node = from; node !== null; node = node.parentElement) seen.push(getComputedStyle(node).backgroundColor);
    return seen;
  };
  const classes = typeof element.className === 'string' && element.className !== '' ? '.' + element.className.trim().split(/\\s+/).join('.') : '';
  const name = element.getAttribute('name') ?? element.getAttribute('aria-label') ?? (element.textContent ?? '').trim().slice(0, 30);
  const sides = ['Top', 'Right', 'Bottom', 'Left'];
  return {
    what: element.tagName.toLowerCase() + classes + (name === '' ? '' : ' "' + name + '"'),
    outline: { style: style.outlineStyle, width: parseFloat(style.outlineWidth), colour: style.outlineColor, offset: parseFloat(style.outlineOffset) },
    shadow: style.boxShadow,
    border: {
      widths: sides.map((side) => style['border' + side + 'Width']).join(' '),
      colours: sides.map((side) => style['border' + side + 'Color']).join(' '),
      style: style.borderTopStyle,
    },
    inside: layers(element),
    outside: layers(element.parentElement),
    scheme: getComputedStyle(document.documentElement).colorScheme,
  };
}`;
/**
 * Runs in the page, as part of STEP below: why nothing of the focused element shows, as the page now shows it (after
 * the browser has scrolled it into view), or null where any of it does (WCAG 2.4.11): it has no size, lies outside
 * the viewport, or lies all under a sticky or fixed element (a header). Sampled at nine points of its part inside
 * the viewport; a point counts as hidden where what lies on top there is, or is inside, a sticky or fixed element
 * that does not hold the focused one.
 */
const HIDDEN = `(element) => {
  const box = element.getBoundingClientRect();
  const [left, right] = [Math.max(box.left, 0), Math.min(box.right, innerWidth)];
  const [top, bottom] = [Math.max(box.top, 0), Math.min(box.bottom, innerHeight)];
  if (box.width === 0 || box.height === 0) return 'nothing of it shows: it is ' + box.width + ' by ' + box.height + ' px';
  if (right <= left || bottom <= top) return 'it lies outside the viewport';
  const pinnedOver = (hit) => {
    for (let node = hit; node !== null && !node.contains(element); node = node.parentElement)
      if (['sticky', 'fixed'].includes(getComputedStyle(node).position)) return node;
    return null;
  };
  let cover = null;
  for (const x of [0.05, 0.5, 0.95])
    for (const y of [0.05, 0.5, 0.95]) {
      const hit = document.elementFromPoint(left + (right - left) * x, top + (bottom - top) * y);
      cover = hit === null ? null : pinnedOver(hit);
      if (cover === null) return null;
    }
  const classes = typeof cover.className === 'string' && cover.className !== '' ? '.' + cover.className.trim().split(/\\s+/).join('.') : '';
  return 'it lies under ' + cover.tagName.toLowerCase() + classes + ' (position: ' + getComputedStyle(cover).position + ')';
}`;

/**
 * Runs in the page after each Tab, so a step costs one round trip (a walk through /docs with everything open passes
 * thousands of elements). Where the focus went, against the element it left (kept in the page): `none` (outside
 * `within`, or on the page itself), `same` (a date field's next part), `seen` (Tab has come round to an element
 * this walk reached already: the page's last was passed) or `new`. With the look of the element it left, now
 * unfocused, and of the one it reached.
 */
const STEP = new Function(`return ([within, start]) => {
  const look = ${LOOK};
  const hidden = ${HIDDEN};
  if (start) globalThis.larderWalk = { seen: new WeakSet(), previous: null };
  const walk = globalThis.larderWalk;
  const focused = document.activeElement;
  const active = focused !== null && focused !== document.body && focused.closest(within) !== null ? focused : null;
  if (active !== null && active === walk.previous) return { where: 'same' };
  const left = walk.previous === null ? undefined : look(walk.previous);
  walk.previous = null;
  if (active === null) return { where: 'none', left };
  if (walk.seen.has(active)) return { where: 'seen', left };
  walk.seen.add(active);
  walk.previous = active;
  return { where: 'new', left, reached: look(active), hidden: hidden(active) };
}`)() as (args: [string, boolean]) => {
  where: 'none' | 'same' | 'seen' | 'new';
  left?: Look;
  reached?: Look;
  hidden?: string | null;
};

/** Every visible, enabled element under `within` that Tab should reach and `tabThrough` did not. */
const UNREACHED = new Function(`return (within) => {
  const reached = globalThis.larderReached ?? new WeakSet();
  const focusable = 'a[href], button, input:not([type="hidden"]), select, textarea, summary, [tabindex]';
  return [...document.querySelectorAll(within)]
    .flatMap((root) => [...root.querySelectorAll(focusable)])
    .filter((element) => {
      // checkVisibility: not in a closed <details>, whose content the browser keeps laid out.
      return element.checkVisibility() && !element.disabled && element.tabIndex >= 0 && !reached.has(element);
    })
    .map((element) => element.tagName.toLowerCase() + ' "' + (element.getAttribute('name') ?? (element.textContent ?? '').trim().slice(0, 30)) + '"');
}`)() as (within: string) => string[];

interface Indicator {
  kind: string;
  colour: Rgba;
  against: Rgba;
  ratio: number;
}

/** Each box-shadow of a computed `box-shadow` list: its colour, spread and whether it is inset. */
const shadows = (css: string) =>
  css === 'none'
    ? []
    : css.split(/,(?![^(]*\))/).map((shadow) => {
        const colour = /(?:rgba?|color)\([^)]*\)/.exec(shadow)?.[0] ?? 'rgb(0, 0, 0)';
        const lengths = shadow
          .replace(colour, '')
          .match(/-?[\d.]+px/g)
          ?.map((length) => Number.parseFloat(length));
        return { colour, spread: lengths?.[3] ?? 0, inset: /\binset\b/.test(shadow) };
      });

/** What changes when the element takes the focus, each with its contrast against what lies next to it. */
const indicators = (focused: Look, unfocused: Look): Indicator[] => {
  const outside = backdrop(focused.outside, focused.scheme);
  const inside = backdrop(focused.inside, focused.scheme);
  const measured = (kind: string, css: string, against: Rgba): Indicator => {
    const colour = over(parseColour(css), against);
    return { kind, colour, against, ratio: contrastRatio(colour, against) };
  };
  const found: Indicator[] = [];
  const { outline } = focused;
  if (
    outline.style !== 'none' &&
    outline.width > 0 &&
    JSON.stringify(outline) !== JSON.stringify(unfocused.outline)
  )
    // An outline pulled inside the element (a negative offset) lies on the element's own background.
    found.push(measured(`outline (${outline.style})`, outline.colour, outline.offset < 0 ? inside : outside));
  if (focused.shadow !== unfocused.shadow)
    for (const shadow of shadows(focused.shadow))
      if (shadow.spread > 0)
        found.push(measured('box-shadow', shadow.colour, shadow.inset ? inside : outside));
  const { border } = focused;
  if (
    border.style !== 'none' &&
    (border.colours !== unfocused.border.colours || border.widths !== unfocused.border.widths)
  )
    found.push(measured('border', border.colours.split(/ (?=rgb|color)/)[0]!, outside));
  return found;
};

/** Why the element's focus fails, or undefined when it shows. */
const judge = (focused: Look, unfocused: Look, minimum: number): string | undefined => {
  const shown = indicators(focused, unfocused).sort((a, b) => b.ratio - a.ratio);
  const best = shown[0];
  if (best === undefined) return `${focused.what}: nothing changes when it takes the focus`;
  if (best.ratio >= minimum) return undefined;
  return `${focused.what}: its ${best.kind} ${hex(best.colour)} is ${best.ratio.toFixed(2)}:1 against ${hex(best.against)}`;
};

export interface FocusWalk {
  /** Each element Tab reached, in order. */
  reached: string[];
  /** Each whose focus did not show, or showed under `minimum`. */
  problems: string[];
  /** Each of which nothing showed once focused and scrolled to (WCAG 2.4.11), and why. */
  hidden: string[];
}

/** Where a Tab walk goes (a selector), the focus contrast it asks, how many presses at most, and which way. */
interface WalkOptions {
  within?: string;
  minimum?: number;
  max?: number;
  backward?: boolean;
}

/**
 * Presses Tab (Shift+Tab with `backward`) from wherever the focus is until it reaches an element inside `within` (a
 * selector), then on through each element there until it leaves (or comes back to the page itself, past the last).
 * Each element's look is read focused, then again when the next Tab has taken the focus away, and the two compared;
 * and where it lies once the browser has scrolled to it. Backward matters for what a sticky header can hide: the
 * browser scrolls only as far as to bring an element inside the viewport, so one reached going up stops at its top.
 */
export const tabThrough = async (
  page: Page,
  { within = 'body', minimum = NON_TEXT, max = 400, backward = false }: WalkOptions = {},
): Promise<FocusWalk> => {
  const walk: FocusWalk = { reached: [], problems: [], hidden: [] };
  let previous: Look | undefined;
  for (let step = 0; step < max; step++) {
    await page.keyboard.press(backward ? 'Shift+Tab' : 'Tab');
    const { where, left, reached, hidden } = await page.evaluate(STEP, [within, step === 0] as [
      string,
      boolean,
    ]);
    // Tab moves through a date field's parts, each in the same element: it still has the focus.
    if (where === 'same') continue;
    if (previous !== undefined && left !== undefined) {
      const problem = judge(previous, left, minimum);
      if (problem !== undefined) walk.problems.push(problem);
    }
    previous = reached;
    if (reached === undefined) {
      if (walk.reached.length > 0) return walk;
      continue;
    }
    walk.reached.push(reached.what);
    if (hidden) walk.hidden.push(`${reached.what}: ${hidden}`);
  }
  throw new Error(`Tab went on past ${max} elements within ${within}`);
};

/** Every visible, enabled element under `within` that should take the focus and no `tabThrough` reached. */
export const unreached = (page: Page, within = 'body'): Promise<string[]> => page.evaluate(UNREACHED, within);

/**
 * Tabs through all of `within`: what did not show its focus at `minimum`, what Tab skipped, what lay hidden under a
 * sticky or fixed element once focused (with `backward`, Shift+Tab back up through it all too), and every control
 * whose edge is under `minimum`. A test gathers them all and asserts once, so a failure lists everything that fails.
 */
export const focusProblems = async (page: Page, options: WalkOptions = {}): Promise<string[]> => {
  const { within = 'body', minimum = NON_TEXT, backward = false } = options;
  const walk = await tabThrough(page, { ...options, backward: false });
  // Back up from past the last: only where each lies is new.
  const back = backward ? await tabThrough(page, options) : undefined;
  const weak = await weakBoundaries(page.locator(within).first(), minimum);
  return [
    ...(walk.reached.length === 0 ? ['Tab reached nothing'] : []),
    ...walk.problems.map((problem) => `focus: ${problem}`),
    ...[...walk.hidden, ...(back?.hidden ?? [])].map((hidden) => `focused, but ${hidden}`),
    ...(await unreached(page, within)).map((skipped) => `not reached by Tab: ${skipped}`),
    ...weak.map(
      (edge) =>
        `edge: ${edge.what}: border ${hex(edge.colour)} ${edge.border.toFixed(2)}:1, fill ${edge.fill.toFixed(2)}:1 against ${hex(edge.background)}`,
    ),
  ];
};
