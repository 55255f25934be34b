import type { Supplier } from '../records/schemas.js';
import type { Category } from './catalog-templates.js';
import { type LocationProfile, personName, slugify } from './location-profile.js';
import type { Random } from './random.js';

/** How a supplier sells: what it carries, how often it is ordered from and how its invoices are built. */
interface SupplierKind {
  names: readonly string[];
  categories: readonly Category[];
  /** Relative share of the location's orders. */
  orderWeight: number;
  /** Business days between ordering and delivery. */
  leadDays: readonly [number, number];
  /** Where sales tax goes: on taxable lines (item level), on the invoice (order level), or nowhere. */
  taxStyle: 'item' | 'order';
  /** Delivery fee charged on small orders. */
  deliveryFee: number;
  fuelSurcharge: boolean;
}

const KINDS: readonly SupplierKind[] = [
  {
    names: ['Metro Foodservice Distributors', 'Keystone Restaurant Supply', 'Allied Food Distributors'],
    categories: [
      'Dry Goods',
      'Frozen',
      'Dairy',
      'Paper & Disposables',
      'Cleaning & Chemicals',
      'Beverages',
      'Meat',
    ],
    orderWeight: 3,
    leadDays: [1, 2],
    taxStyle: 'item',
    deliveryFee: 25,
    fuelSurcharge: true,
  },
  {
    names: ['Pacific Fresh Produce', 'Greenleaf Produce Co.', 'Valley Harvest Produce'],
    categories: ['Produce'],
    orderWeight: 3,
    leadDays: [1, 1],
    taxStyle: 'item',
    deliveryFee: 15,
    fuelSurcharge: true,
  },
  {
    names: ['Prime Cut Meats', 'Heritage Butcher Supply', 'Ridgeline Meat Company'],
    categories: ['Meat'],
    orderWeight: 2,
    leadDays: [1, 2],
    taxStyle: 'item',
    deliveryFee: 0,
    fuelSurcharge: false,
  },
  {
    names: ['Golden Valley Dairy', 'Clover Hill Creamery', 'Sunrise Dairy Distributors'],
    categories: ['Dairy'],
    orderWeight: 2,
    leadDays: [1, 1],
    taxStyle: 'item',
    deliveryFee: 12.5,
    fuelSurcharge: false,
  },
  {
    names: ['Bayside Seafood Co.', 'North Atlantic Fish Market', 'Blue Current Seafood'],
    categories: ['Seafood'],
    orderWeight: 1.5,
    leadDays: [1, 2],
    taxStyle: 'item',
    deliveryFee: 20,
    fuelSurcharge: false,
  },
  {
    names: ['Summit Beverage Distributors', 'Crystal Springs Beverage', 'Capitol Bottling Co.'],
    categories: ['Beverages'],
    orderWeight: 1,
    leadDays: [2, 4],
    taxStyle: 'item',
    deliveryFee: 0,
    fuelSurcharge: false,
  },
  {
    names: ['Evergreen Paper & Packaging', 'EcoServe Disposables', 'Atlas Packaging Supply'],
    categories: ['Paper & Disposables'],
    orderWeight: 0.5,
    leadDays: [3, 5],
    taxStyle: 'order',
    deliveryFee: 35,
    fuelSurcharge: true,
  },
  {
    names: ["Baker's Pride Bakery", 'Hearthstone Bread Co.', 'Morning Rise Bakery'],
    categories: ['Bakery'],
    orderWeight: 2,
    leadDays: [1, 1],
    taxStyle: 'item',
    deliveryFee: 0,
    fuelSurcharge: false,
  },
  {
    names: ['Heritage Wine & Spirits', 'Vintner Select Imports', 'Riverbend Wine Merchants'],
    categories: ['Alcohol'],
    orderWeight: 1,
    leadDays: [2, 5],
    taxStyle: 'item',
    deliveryFee: 0,
    fuelSurcharge: false,
  },
  {
    names: ['Coastal Coffee Roasters', 'Ember & Bean Coffee', 'Stonegate Tea & Coffee'],
    categories: ['Coffee & Tea'],
    orderWeight: 0.5,
    leadDays: [2, 4],
    taxStyle: 'item',
    deliveryFee: 0,
    fuelSurcharge: false,
  },
  {
    names: ['CleanPro Chemical Supply', 'Sparkle Sanitation Products', 'Brightway Janitorial'],
    categories: ['Cleaning & Chemicals'],
    orderWeight: 0.4,
    leadDays: [3, 6],
    taxStyle: 'order',
    deliveryFee: 30,
    fuelSurcharge: false,
  },
  {
    names: ['Green Acres Specialty Foods', 'Old World Provisions', 'Artisan Pantry Imports'],
    categories: ['Dry Goods', 'Dairy', 'Produce'],
    orderWeight: 0.5,
    leadDays: [2, 5],
    taxStyle: 'item',
    deliveryFee: 18,
    fuelSurcharge: false,
  },
];

const STREET_NAMES = ['Industrial Way', 'Commerce Blvd', 'Produce Row', 'Harbor Dr', 'Distribution Pkwy'];
const STREET_NAMES_2 = ['Warehouse Rd', 'Terminal St', 'Freight Ave', 'Market Ct', 'Depot Ln'];

export interface SupplierProfile {
  supplier: Supplier;
  kind: SupplierKind;
  /** Prefix of this supplier's item ids and order numbers, e.g. `PFP`. */
  code: string;
  /** Share of this supplier's items whose supplier item id the location recorded (the rest stay null). */
  itemIdsKnown: number;
}

const initials = (name: string): string =>
  name
    .replace(/[^A-Za-z ]/g, '')
    .split(' ')
    .filter((word) => word.length > 2)
    .map((word) => word[0]!.toUpperCase())
    .join('')
    .slice(0, 3);

const phoneNumber = (random: Random, areaCode: string): string =>
  // 555-01xx numbers are reserved for fiction: realistic shape, never someone's phone.
  `${areaCode}55501${String(random.int(0, 99)).padStart(2, '0')}`;

const buildSupplier = (random: Random, name: string, location: LocationProfile): Supplier => {
  const { metro } = location;
  const supplier: Supplier = { id: random.uuid(), name };
  supplier.accountNumber = random.chance(0.8) ? `${random.int(100000, 999999)}` : null;
  if (random.chance(0.85)) {
    const lines = [
      `${random.int(100, 9999)} ${random.pick(random.chance(0.5) ? STREET_NAMES : STREET_NAMES_2)}`,
    ];
    if (random.chance(0.3)) lines.push(`Suite ${random.int(1, 40) * 10}`);
    supplier.address = {
      regionCode: 'US',
      addressLines: lines,
      revision: random.chance(0.8) ? 0 : 1,
      languageCode: random.chance(0.5) ? 'en' : null,
      postalCode: `${metro.zipPrefix}${String(random.int(0, 999)).padStart(3, '0')}`,
      sortingCode: null,
      administrativeArea: metro.state,
      locality: random.pick(metro.towns),
      sublocality: null,
    };
  }
  const contact = personName(random);
  supplier.contactName = random.chance(0.75) ? `${contact.firstName} ${contact.lastName}` : null;
  if (random.chance(0.9)) {
    supplier.phoneDetails = {
      countryCode: '1',
      countryIsoCode: 'US',
      nationalNumber: phoneNumber(random, random.pick(metro.areaCodes)),
    };
  }
  // `.example` keeps the addresses realistic in shape but never deliverable.
  const domain = `${slugify(name).replaceAll('-', '')}.example`;
  supplier.email = random.chance(0.8)
    ? random.chance(0.5)
      ? `orders@${domain}`
      : `${contact.firstName.toLowerCase()}.${contact.lastName.toLowerCase()}@${domain}`
    : null;
  return supplier;
};

/** Suppliers in kind order (broadline first), so a small count still covers the most-bought categories. */
export const buildSuppliers = (
  random: Random,
  count: number,
  location: LocationProfile,
): SupplierProfile[] => {
  const offsets = KINDS.map((kind) => random.int(0, kind.names.length - 1));
  const profiles: SupplierProfile[] = [];
  for (let i = 0; i < count; i++) {
    const kindIndex = i % KINDS.length;
    const kind = KINDS[kindIndex]!;
    const round = Math.floor(i / KINDS.length);
    const base = kind.names[(offsets[kindIndex]! + round) % kind.names.length]!;
    const name = round < kind.names.length ? base : `${base} #${Math.floor(round / kind.names.length) + 1}`;
    profiles.push({
      supplier: buildSupplier(random, name, location),
      kind,
      code: initials(name) || 'SUP',
      itemIdsKnown: random.between(0.75, 1),
    });
  }
  return profiles;
};
