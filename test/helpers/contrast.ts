import type { Locator, Page } from 'playwright-core';

/**
 * WCAG 2.x contrast from what the browser computed: an element's text colour against the backgrounds beneath it,
 * each translucent one composited over those below, down to the canvas. An empty field's placeholder counts as
 * text too (WCAG 1.4.3 does not exempt it), read from its `::placeholder` style, opacity included, and so is text
 * a style sheet draws in a `::before` or `::after`. Background
 * images and gradients are not read (the pages tested here have none behind text), nor an ancestor's opacity (only
 * disabled controls, which WCAG exempts, use one).
 */

export type Rgba = readonly [number, number, number, number];

/** The AA minimum for body text. */
export const AA = 4.5;

/** The AA minimum for what is not text: a control's boundary, a focus indicator (WCAG 1.4.11). */
export const NON_TEXT = 3;

/** A computed colour: `rgb()`/`rgba()`, or `color(srgb …)` where a browser keeps that form. */
export const parseColour = (css: string): Rgba => {
  const rgb = /^rgba?\(([^)]+)\)$/.exec(css);
  if (rgb !== null) {
    const [r = 0, g = 0, b = 0, a = 1] = rgb[1]!
      .split(/[\s,/]+/)
      .filter(Boolean)
      .map(Number);
    return [r, g, b, a];
  }
  const srgb = /^color\(srgb ([^)]+)\)$/.exec(css);
  if (srgb !== null) {
    const [r = 0, g = 0, b = 0, a = 1] = srgb[1]!
      .split(/[\s/]+/)
      .filter(Boolean)
      .map(Number);
    return [r * 255, g * 255, b * 255, a];
  }
  throw new Error(`cannot read the colour ${JSON.stringify(css)}`);
};

/** `top` seen over the opaque `bottom`. */
export const over = (top: Rgba, bottom: Rgba): Rgba => {
  const a = top[3];
  return [
    top[0] * a + bottom[0] * (1 - a),
    top[1] * a + bottom[1] * (1 - a),
    top[2] * a + bottom[2] * (1 - a),
    1,
  ];
};

const linear = (channel: number) => {
  const c = channel / 255;
  return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
};

export const luminance = ([r, g, b]: Rgba): number =>
  0.2126 * linear(r) + 0.7152 * linear(g) + 0.0722 * linear(b);

export const contrastRatio = (a: Rgba, b: Rgba): number => {
  const [light, dark] = [luminance(a), luminance(b)].sort((x, y) => y - x) as [number, number];
  return (light + 0.05) / (dark + 0.05);
};

/** What the page reports of one piece of text. */
interface Seen {
  what: string;
  text: string;
  colour: string;
  /** The text's own opacity (a placeholder's or a generated text's style may set one); 1 elsewhere. */
  opacity: number;
  /** Background colours from the element up to the root. */
  layers: string[];
  /** The root's used colour scheme: the canvas under everything is dark in a dark one. */
  scheme: string;
}

export interface ContrastSample {
  what: string;
  text: string;
  ratio: number;
  colour: Rgba;
  background: Rgba;
}

/** Chromium's canvas: white, or #121212 under `color-scheme: dark`. */
const canvas = (scheme: string): Rgba =>
  /\bdark\b/.test(scheme) && !/\blight\b/.test(scheme) ? [18, 18, 18, 1] : [255, 255, 255, 1];

/** Background colours from an element up to the root, each composited over those below, down to the canvas. */
export const backdrop = (layers: readonly string[], scheme: string): Rgba => {
  let background = canvas(scheme);
  for (const layer of [...layers].reverse()) background = over(parseColour(layer), background);
  return background;
};

/** `#rrggbb`, to name a composited colour in a failure. */
export const hex = (colour: Rgba): string =>
  `#${colour
    .slice(0, 3)
    .map((channel) => Math.round(channel).toString(16).padStart(2, '0'))
    .join('')}`;

const measure = (seen: Seen): ContrastSample => {
  const background = backdrop(seen.layers, seen.scheme);
  const [r, g, b, a] = parseColour(seen.colour);
  const colour = over([r, g, b, a * seen.opacity], background);
  return { what: seen.what, text: seen.text, ratio: contrastRatio(colour, background), colour, background };
};

/**
 * Runs in the page. Written as a string and made a function here, so the test's transpiler adds nothing to it (its
 * name-keeping helper does not exist in the page). With `all`, every visible piece of text
 * under `root` (each element's own text, the value a select or text field shows, an empty field's placeholder,
 * and text drawn by a `::before` or `::after`); without, `root`'s own.
 */
const READ = `(root, all) => {
  const scheme = getComputedStyle(document.documentElement).colorScheme;
  // Each element's background read once, not once for every piece of text above it.
  const backgrounds = new Map();
  const backgroundOf = (node) => {
    let colour = backgrounds.get(node);
    if (colour === undefined) backgrounds.set(node, (colour = getComputedStyle(node).backgroundColor));
    return colour;
  };
  const read = (element, text, pseudo = null) => {
    const layers = [];
    for (let node = element; node !== null; node = node.parentElement) layers.push(backgroundOf(node));
    const classes = typeof element.className === 'string' && element.className !== '' ? '.' + element.className.trim().split(/\\s+/).join('.') : '';
    const style = getComputedStyle(element, pseudo);
    const opacity = pseudo === null ? 1 : Number(style.opacity);
    return { what: element.tagName.toLowerCase() + classes + (pseudo ?? ''), text: text.slice(0, 60), colour: style.color, opacity, layers, scheme };
  };
  const shown = (element) => {
    const box = element.getBoundingClientRect();
    return box.width > 0 && box.height > 0 && getComputedStyle(element).visibility === 'visible';
  };
  const ownText = (element) => {
    if (element instanceof HTMLSelectElement) return element.selectedOptions[0]?.textContent ?? '';
    if (element instanceof HTMLInputElement || element instanceof HTMLTextAreaElement)
      return ['checkbox', 'radio', 'hidden'].includes(element.type) ? '' : element.value;
    return [...element.childNodes].filter((node) => node.nodeType === 3).map((node) => node.textContent).join(' ');
  };
  // Text a style sheet draws (a required field's "*"): a quoted string as the pseudo-element's whole content.
  const generatedText = (element, pseudo) => {
    const style = getComputedStyle(element, pseudo);
    const quoted = /^"((?:[^"\\\\]|\\\\.)*)"$/.exec(style.content);
    return quoted === null || style.display === 'none' ? '' : quoted[1].replace(/\\\\(.)/g, '$1').trim();
  };
  if (!all) return read(root, (root.textContent ?? '').trim());
  const seen = [];
  for (const element of [root, ...root.querySelectorAll('*')]) {
    // SVG text is drawn with fill, not color; disabled controls are exempt (WCAG 1.4.3); options draw in a popup.
    if (element.closest('svg, :disabled, option, script, style, [aria-hidden="true"]') !== null) continue;
    const text = ownText(element).trim();
    const field = element instanceof HTMLInputElement || element instanceof HTMLTextAreaElement;
    const placeholder = text === '' && field ? element.placeholder.trim() : '';
    const generated = ['::before', '::after']
      .map((pseudo) => [pseudo, generatedText(element, pseudo)])
      .filter(([, content]) => content !== '');
    if ((text === '' && placeholder === '' && generated.length === 0) || !shown(element)) continue;
    if (text !== '') seen.push(read(element, text));
    else if (placeholder !== '') seen.push(read(element, placeholder, '::placeholder'));
    for (const [pseudo, content] of generated) seen.push(read(element, content, pseudo));
  }
  // Each list of backgrounds sent once, the texts naming theirs by its place: /docs with everything open has 20,000
  // texts, and sent whole they came to 13 MB, whose passage out of the page took most of the check's 10 s.
  const places = new Map();
  const layerLists = [];
  const texts = seen.map(({ layers, ...text }) => {
    const key = layers.join('|');
    let at = places.get(key);
    if (at === undefined) places.set(key, (at = layerLists.push(layers) - 1));
    return { ...text, layersAt: at };
  });
  return { layerLists, texts };
}`;
/** What READ sends of every text under a root: each list of backgrounds once, and the texts pointing into it. */
interface Texts {
  layerLists: string[][];
  texts: (Omit<Seen, 'layers'> & { layersAt: number })[];
}
const read = new Function(`return ${READ}`)() as (root: unknown, all: boolean) => Seen | Texts;

/** The contrast of one element's text against what lies beneath it. */
export const contrastOf = async (locator: Locator): Promise<ContrastSample> =>
  measure((await locator.evaluate(read, false)) as Seen);

/** Every visible piece of text on the page (or under `root`) whose contrast is under `minimum`. */
export const lowContrast = async (target: Page | Locator, minimum = AA): Promise<ContrastSample[]> => {
  const root = 'goto' in target ? target.locator('body') : target;
  const { layerLists, texts } = (await root.evaluate(read, true)) as Texts;
  return texts
    .map(({ layersAt, ...text }) => measure({ ...text, layers: layerLists[layersAt]! }))
    .filter((sample) => sample.ratio < minimum);
};

/** What lies beneath an element's content, composited: to tell a dark page from a light one. */
export const backgroundOf = async (locator: Locator): Promise<Rgba> => (await contrastOf(locator)).background;

export const isDark = (colour: Rgba): boolean => luminance(colour) < 0.18;

/** What the page reports of one control's edge. */
interface Edge {
  what: string;
  /** The top border: its used width, style and colour (the controls tested draw all four sides alike). */
  border: { width: number; style: string; colour: string };
  /** Background colours from the control up to the root, and from its parent up. */
  inside: string[];
  outside: string[];
  scheme: string;
}

export interface WeakBoundary {
  what: string;
  /** The border's contrast against what lies outside the control, and its fill's. */
  border: number;
  fill: number;
  colour: Rgba;
  background: Rgba;
}

/**
 * Runs in the page (a string made a function, as READ above). Every visible, enabled text field, select and button
 * under `root`. Checkboxes and radio buttons are left out: the browser draws them, whatever the computed style says.
 */
const EDGES = `(root) => {
  const scheme = getComputedStyle(document.documentElement).colorScheme;
  const layers = (from) => {
    const seen = [];
    for (let node = from; node !== null; node = node.parentElement) seen.push(getComputedStyle(node).backgroundColor);
    return seen;
  };
  const controls = root.querySelectorAll('input:not([type="checkbox"], [type="radio"], [type="hidden"]), select, textarea, button');
  return [...controls]
    .filter((control) => {
      const box = control.getBoundingClientRect();
      return box.width > 0 && box.height > 0 && !control.disabled && control.closest('[aria-hidden="true"]') === null;
    })
    .map((control) => {
      const style = getComputedStyle(control);
      const classes = typeof control.className === 'string' && control.className !== '' ? '.' + control.className.trim().split(/\\s+/).join('.') : '';
      const name = control.getAttribute('name') ?? control.getAttribute('aria-label') ?? control.textContent.trim().slice(0, 30);
      return {
        what: control.tagName.toLowerCase() + classes + (name === '' ? '' : ' "' + name + '"'),
        border: { width: parseFloat(style.borderTopWidth), style: style.borderTopStyle, colour: style.borderTopColor },
        inside: layers(control),
        outside: layers(control.parentElement),
        scheme,
      };
    });
}`;
const edges = new Function(`return ${EDGES}`)() as (root: unknown) => Edge[];

/**
 * Every control under `target` whose edge is too faint (WCAG 1.4.11): it draws a border, and neither that border
 * nor its fill reaches `minimum` against what lies outside it. One that draws no border (styled as text, or a
 * filled button whose label names it) is not listed.
 */
export const weakBoundaries = async (target: Page | Locator, minimum = NON_TEXT): Promise<WeakBoundary[]> => {
  const root = 'goto' in target ? target.locator('body') : target;
  return ((await root.evaluate(edges)) as Edge[]).flatMap((edge) => {
    const background = backdrop(edge.outside, edge.scheme);
    const fill = contrastRatio(backdrop(edge.inside, edge.scheme), background);
    const painted = parseColour(edge.border.colour);
    const drawn = edge.border.width > 0 && !['none', 'hidden'].includes(edge.border.style) && painted[3] > 0;
    const colour = over(painted, background);
    const border = drawn ? contrastRatio(colour, background) : 1;
    return drawn && border < minimum && fill < minimum
      ? [{ what: edge.what, border, fill, colour, background }]
      : [];
  });
};

/** Runs in a blank page (no Content-Security-Policy of the page tested): a PNG's pixels, RGBA, row by row. */
const PIXELS = new Function(`return async (base64) => {
  const image = new Image();
  image.src = 'data:image/png;base64,' + base64;
  await image.decode();
  const canvas = document.createElement('canvas');
  canvas.width = image.width;
  canvas.height = image.height;
  const context = canvas.getContext('2d');
  context.drawImage(image, 0, 0);
  return { width: image.width, height: image.height, data: [...context.getImageData(0, 0, image.width, image.height).data] };
}`)() as (base64: string) => Promise<{ width: number; height: number; data: number[] }>;

/** Runs in the page: an element's tag and classes, its name or else its text or label's, and whether it is checked. */
const NAME = new Function(`return (element) => {
  const classes = typeof element.className === 'string' && element.className !== '' ? '.' + element.className.trim().split(/\\s+/).join('.') : '';
  const type = element.type === undefined ? '' : '[type=' + element.type + ']';
  const name = element.name || ((element.closest('label') ?? element).textContent ?? '').trim().slice(0, 30);
  return element.tagName.toLowerCase() + type + classes + ' "' + name + '"' + (element.checked ? ' (checked)' : '');
}`)() as (element: unknown) => string;

export interface WeakEdge {
  what: string;
  /** The weakest side: its most contrasting pixel against the pixel just outside it. */
  ratio: number;
  colour: Rgba;
  background: Rgba;
}

/** Pixels around an element in its screenshot: what lies outside its edge. */
const OUTSIDE = 3;
/** Pixels measured from where the drawing starts: a border and its anti-aliasing, short of any label. */
const EDGE = 3;

/**
 * Every visible element matching `selector` under `within` whose edge, as drawn, is too faint (WCAG 1.4.11).
 * Measured from a screenshot, for what the computed style cannot tell: a checkbox or radio button (the browser
 * draws it, whatever the style says, and may centre it in a wider box), or a button over a code block that is not
 * its parent. On each side, inwards from the pixel just outside its middle: the first pixel that is not that
 * background starts the drawing, and of it and the next few (its border, else its fill) the one that contrasts most
 * with the background counts; the weakest side must reach `minimum`. The pointer is moved away and the focus
 * dropped first, so neither a hover style nor a focus ring is measured.
 */
export const weakDrawnEdges = async (
  page: Page,
  { within = 'body', selector = 'input[type="checkbox"], input[type="radio"]', minimum = NON_TEXT } = {},
): Promise<WeakEdge[]> => {
  await page.mouse.move(0, 0);
  await page.evaluate('document.activeElement?.blur()');
  const elements = await page.locator(within).locator(selector).filter({ visible: true }).all();
  if (elements.length === 0) return [];
  const decoder = await page.context().newPage();
  try {
    const weak: WeakEdge[] = [];
    for (const element of elements) {
      // An inactive control is exempt (WCAG 1.4.11), as Swagger UI's "Send empty value" is while its field is filled.
      if (await element.isDisabled()) continue;
      await element.scrollIntoViewIfNeeded();
      const box = await element.boundingBox();
      if (box === null) continue;
      const shot = await page.screenshot({
        clip: {
          x: Math.round(box.x) - OUTSIDE,
          y: Math.round(box.y) - OUTSIDE,
          width: Math.round(box.width) + 2 * OUTSIDE,
          height: Math.round(box.height) + 2 * OUTSIDE,
        },
      });
      const { width, height, data } = await decoder.evaluate(PIXELS, shot.toString('base64'));
      const pixel = ([x, y]: readonly [number, number]): Rgba => {
        const at = (y * width + x) * 4;
        return [data[at]!, data[at + 1]!, data[at + 2]!, 1];
      };
      const [midX, midY] = [Math.floor(width / 2), Math.floor(height / 2)];
      // Each side: from just outside it to the middle, as [x, y] steps.
      const sides = [
        Array.from({ length: midX + 1 }, (_, i) => [i, midY] as const),
        Array.from({ length: midX + 1 }, (_, i) => [width - 1 - i, midY] as const),
        Array.from({ length: midY + 1 }, (_, i) => [midX, i] as const),
        Array.from({ length: midY + 1 }, (_, i) => [midX, height - 1 - i] as const),
      ];
      // A side against a sibling control drawn beside it (Swagger UI's copy button abuts Download) is that pair's
      // shared edge, not this control's edge against what it lies on: judged only when every side is such.
      const offset = { x: Math.round(box.x) - OUTSIDE, y: Math.round(box.y) - OUTSIDE };
      const againstPage: boolean[] = await element.evaluate(
        (self, points) =>
          points.map(
            ([x, y]) =>
              ![...(self.parentElement?.children ?? [])].some((sibling) => {
                const control = 'button, a[href], input, select, textarea';
                if (sibling === self || !(sibling.matches(control) || sibling.querySelector(control)))
                  return false;
                const r = sibling.getBoundingClientRect();
                return x >= r.left && x < r.right && y >= r.top && y < r.bottom;
              }),
          ),
        sides.map((steps) => [offset.x + steps[0]![0], offset.y + steps[0]![1]] as const),
      );
      const judged = againstPage.some(Boolean) ? sides.filter((_, i) => againstPage[i]) : sides;
      const measured = judged.map((steps) => {
        const colours = steps.map(pixel);
        const background = colours[0]!;
        const start = colours.findIndex((colour) => colour.some((channel, i) => channel !== background[i]));
        const colour = (start === -1 ? [background] : colours.slice(start, start + EDGE)).reduce(
          (best, next) => (contrastRatio(next, background) > contrastRatio(best, background) ? next : best),
        );
        return { ratio: contrastRatio(colour, background), colour, background };
      });
      const weakest = measured.reduce((a, b) => (b.ratio < a.ratio ? b : a));
      if (weakest.ratio < minimum) weak.push({ what: await element.evaluate(NAME), ...weakest });
    }
    return weak;
  } finally {
    await decoder.close();
  }
};
