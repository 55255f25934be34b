import type { Category } from './catalog-templates.js';
import { CATEGORIES, ITEM_TEMPLATES, VARIANTS } from './catalog-templates.js';
import { round2 } from './money.js';
import type { Random } from './random.js';
import type { SupplierProfile } from './suppliers.js';

export interface ReceivingUnit {
  name: string;
  quantityInUnit: number;
}

export interface SupplierOffer {
  supplierIndex: number;
  supplierItemId: string | null;
}

export interface CatalogItem {
  index: number;
  itemVersionId: string;
  name: string;
  category: Category;
  baseUnit: string;
  /** Weights and volumes are counted to a tenth; pieces to the unit. */
  fractional: boolean;
  /** How it is normally bought; null for house-made prep items. */
  caseUnit: ReceivingUnit | null;
  /** A single-piece unit for split-case orders, when the case holds several pieces. */
  splitUnit: ReceivingUnit | null;
  casePrice: number;
  /** Cost of one base unit. */
  unitCost: number;
  /** Cases in a usual order. */
  usualCases: number;
  /** Comfortable stock, in base units. */
  par: number;
  /** Charged sales tax (supplies, not food). */
  taxable: boolean;
  /** Cans and bottles carry a deposit where the state has a bottle bill. */
  container: boolean;
  offers: SupplierOffer[];
}

export interface Catalog {
  items: CatalogItem[];
  /** Item indexes each supplier can deliver, by supplier index. */
  bySupplier: number[][];
}

const FRACTIONAL_UNITS = new Set(['lb', 'gallon', 'quart', 'liter', 'half gallon']);
const PIECE_UNIT_NAMES: Readonly<Record<string, string>> = {
  each: 'Each',
  can: 'Can',
  bottle: 'Bottle',
  bunch: 'Bunch',
  pint: 'Pint',
  jar: 'Jar',
  pouch: 'Pouch',
  carton: 'Carton',
  canister: 'Canister',
  packet: 'Packet',
  sheet: 'Sheet',
};

interface Template {
  category: Category;
  name: string;
  baseUnit: string;
  caseName: string;
  quantityInUnit: number;
  price: number;
}

const parse = (category: Category, line: string): Template => {
  const [name = '', baseUnit = '', caseName = '', quantity = '0', price = '0'] = line.split('|');
  return { category, name, baseUnit, caseName, quantityInUnit: Number(quantity), price: Number(price) };
};

/** A catalog drawn from the templates; beyond the template list, variants ("Roma Tomatoes (Organic)"). */
const chooseTemplates = (random: Random, count: number): Template[] => {
  const prepCount = count >= 20 ? Math.round(count * 0.06) : 0;
  const prep = random.shuffle(ITEM_TEMPLATES.Prep.map((line) => parse('Prep', line)));
  const bought = random.shuffle(
    CATEGORIES.filter((category) => category !== 'Prep').flatMap((category) =>
      ITEM_TEMPLATES[category].map((line) => parse(category, line)),
    ),
  );
  const chosen: Template[] = [];
  for (let i = 0; i < prepCount; i++) {
    const template = prep[i % prep.length]!;
    const round = Math.floor(i / prep.length);
    chosen.push(round === 0 ? template : { ...template, name: `${template.name} (Batch ${round + 1})` });
  }
  for (let i = 0; chosen.length < count; i++) {
    const template = bought[i % bought.length]!;
    const round = Math.floor(i / bought.length);
    if (round === 0) chosen.push(template);
    else {
      const variant = VARIANTS[(round - 1) % VARIANTS.length]!;
      const cycle = Math.floor((round - 1) / VARIANTS.length);
      const suffix = cycle === 0 ? variant : `${variant} ${cycle + 1}`;
      chosen.push({
        ...template,
        name: `${template.name} (${suffix})`,
        price: round2(template.price * random.between(0.85, 1.3)),
      });
    }
  }
  return chosen;
};

const offersFor = (
  random: Random,
  template: Template,
  suppliers: readonly SupplierProfile[],
): SupplierOffer[] => {
  if (template.category === 'Prep' || suppliers.length === 0) return [];
  const carriers = suppliers.flatMap((profile, index) =>
    profile.kind.categories.includes(template.category) ? [index] : [],
  );
  // Specialists first: a produce item is bought from the produce house before the broadliner.
  carriers.sort(
    (a, b) => suppliers[a]!.kind.categories.length - suppliers[b]!.kind.categories.length || a - b,
  );
  const chosen = carriers.length === 0 ? [0] : carriers.slice(0, random.chance(0.3) ? 2 : 1);
  return chosen.map((supplierIndex) => {
    const profile = suppliers[supplierIndex]!;
    return {
      supplierIndex,
      supplierItemId: random.chance(profile.itemIdsKnown)
        ? `${profile.code}-${random.int(10000, 99999)}`
        : null,
    };
  });
};

export const buildCatalog = (
  random: Random,
  count: number,
  suppliers: readonly SupplierProfile[],
): Catalog => {
  const items = chooseTemplates(random, count).map((template, index): CatalogItem => {
    const prep = template.category === 'Prep';
    const pieces = PIECE_UNIT_NAMES[template.baseUnit];
    const caseUnit = prep ? null : { name: template.caseName, quantityInUnit: template.quantityInUnit };
    const unitCost = prep ? template.price : template.price / template.quantityInUnit;
    // Usual order: a few cases of cheap goods, one of expensive ones.
    const usualCases = prep ? 0 : Math.max(1, Math.min(8, Math.round(160 / template.price)));
    const caseSize = prep ? random.int(4, 12) : template.quantityInUnit;
    return {
      index,
      itemVersionId: random.uuid(),
      name: template.name,
      category: template.category,
      baseUnit: template.baseUnit,
      fractional: FRACTIONAL_UNITS.has(template.baseUnit),
      caseUnit,
      splitUnit:
        !prep && pieces !== undefined && template.quantityInUnit >= 6
          ? { name: pieces, quantityInUnit: 1 }
          : null,
      casePrice: template.price,
      unitCost,
      usualCases,
      par: Math.max(2, (prep ? 2 : usualCases * 2) * caseSize),
      taxable: template.category === 'Paper & Disposables' || template.category === 'Cleaning & Chemicals',
      container:
        (template.category === 'Beverages' || template.category === 'Alcohol') &&
        (template.baseUnit === 'can' || template.baseUnit === 'bottle'),
      offers: offersFor(random, template, suppliers),
    };
  });
  const bySupplier = suppliers.map(() => [] as number[]);
  for (const item of items)
    for (const offer of item.offers) bySupplier[offer.supplierIndex]!.push(item.index);
  return { items, bySupplier };
};
