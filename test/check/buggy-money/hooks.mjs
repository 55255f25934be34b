// Module hooks that load src/seed/money.ts with a deliberate arithmetic bug (for check-independence.test.ts).
// They run after tsx has turned the TypeScript into (minified) JavaScript, so the patterns ignore spaces.
const BUGS = {
  // Every line subtotal two cents high, carried consistently into every total the generator derives from it.
  'subtotal-plus-2c': [
    'const subtotal = round2(quantity * baseCost);',
    'const subtotal = round2(quantity * baseCost + 0.02);',
  ],
  // Landed costs share order adjustments by quantity whatever the strategy says.
  'shares-by-quantity': [
    'strategy === "ITEM_QUANTITY" ? line.quantity : strategy === "EQUALLY_PER_ITEM" ? 1 : line.total',
    'line.quantity',
  ],
};

let bug;
export const initialize = (data) => {
  bug = BUGS[data.bug];
  if (bug === undefined) throw new Error(`no such money bug: ${data.bug}`);
};

export const load = async (url, context, nextLoad) => {
  const result = await nextLoad(url, context);
  if (!new URL(url).pathname.endsWith('/src/seed/money.ts')) return result;
  const source =
    typeof result.source === 'string' ? result.source : Buffer.from(result.source).toString('utf8');
  const pattern = new RegExp(
    bug[0]
      .replaceAll(' ', '')
      .split('')
      .map((ch) => ch.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
      .join('\\s*'),
  );
  if (!pattern.test(source)) throw new Error(`src/seed/money.ts no longer contains ${bug[0]}`);
  return { ...result, source: source.replace(pattern, bug[1]) };
};
