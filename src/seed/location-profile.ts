import type { UserDetails } from '../records/schemas.js';
import { Random } from './random.js';

/**
 * Who a generated location is: its name, id, metro area and staff. Location ids are `loc-` + the slug of the
 * name (e.g. `loc-harbor-street-kitchen`): readable in a curl command, and the same for the same seed and index.
 */

const STREETS = [
  'Harbor Street',
  'Maple Avenue',
  'Union Square',
  'Mission',
  'Elm Street',
  'Riverside',
  'Cedar Lane',
  'Market Street',
  'Juniper',
  'Copper Creek',
  'Old Mill',
  'Hawthorne',
  'Granite Street',
  'Bayview',
  'Linden',
  'Foundry',
  'Orchard Road',
  'Highland Park',
  'Dockside',
  'Willow Street',
  'Ironwood',
  'Main Street',
  'Larkspur',
  'Pier 39',
  'Chestnut',
  'Sycamore',
  'Northgate',
  'Fulton Street',
  'Alder',
  'Magnolia',
] as const;

const KINDS = [
  'Kitchen',
  'Bistro',
  'Grill',
  'Tavern',
  'Cafe',
  'Eatery',
  'Table',
  'Taqueria',
  'Trattoria',
  'Brasserie',
  'Smokehouse',
  'Noodle Bar',
] as const;

export interface Metro {
  city: string;
  state: string;
  /** Supplier towns around the city. */
  towns: readonly string[];
  areaCodes: readonly string[];
  zipPrefix: string;
  /** Sales tax (%) charged on taxable supplies. */
  salesTax: number;
  /** Container deposit per can/bottle, 0 where the state has no bottle bill. */
  deposit: number;
  /** Hours from UTC (US metros only: local days then start after UTC midnight, see generate-location). */
  utcOffset: number;
}

const METROS: readonly Metro[] = [
  {
    city: 'Oakland',
    state: 'CA',
    towns: ['Oakland', 'San Leandro', 'Hayward', 'Richmond', 'Emeryville', 'South San Francisco'],
    areaCodes: ['510', '415', '650'],
    zipPrefix: '94',
    salesTax: 10.25,
    deposit: 0.05,
    utcOffset: -7,
  },
  {
    city: 'Portland',
    state: 'OR',
    towns: ['Portland', 'Beaverton', 'Tualatin', 'Gresham', 'Clackamas'],
    areaCodes: ['503', '971'],
    zipPrefix: '97',
    salesTax: 0,
    deposit: 0.1,
    utcOffset: -7,
  },
  {
    city: 'Chicago',
    state: 'IL',
    towns: ['Chicago', 'Cicero', 'Elk Grove Village', 'Bedford Park', 'Evanston'],
    areaCodes: ['312', '773', '708'],
    zipPrefix: '60',
    salesTax: 10.25,
    deposit: 0,
    utcOffset: -5,
  },
  {
    city: 'Austin',
    state: 'TX',
    towns: ['Austin', 'Round Rock', 'Pflugerville', 'San Marcos', 'Buda'],
    areaCodes: ['512', '737'],
    zipPrefix: '78',
    salesTax: 8.25,
    deposit: 0,
    utcOffset: -5,
  },
  {
    city: 'Boston',
    state: 'MA',
    towns: ['Boston', 'Chelsea', 'Everett', 'Somerville', 'Woburn', 'Canton'],
    areaCodes: ['617', '781', '857'],
    zipPrefix: '02',
    salesTax: 6.25,
    deposit: 0.05,
    utcOffset: -4,
  },
  {
    city: 'Denver',
    state: 'CO',
    towns: ['Denver', 'Commerce City', 'Aurora', 'Lakewood', 'Englewood'],
    areaCodes: ['303', '720'],
    zipPrefix: '80',
    salesTax: 8.81,
    deposit: 0,
    utcOffset: -6,
  },
];

const FIRST_NAMES = [
  'Maria',
  'James',
  'Aisha',
  'Daniel',
  'Sofia',
  'Marcus',
  'Priya',
  'Kevin',
  'Elena',
  'Tyler',
  'Grace',
  'Luis',
  'Hannah',
  'Omar',
  'Chloe',
  'Andre',
  'Mei',
  'Jordan',
  'Nina',
  'Carlos',
] as const;

const LAST_NAMES = [
  'Lopez',
  'Nguyen',
  'Okafor',
  'Schmidt',
  'Rossi',
  'Johnson',
  'Patel',
  'Kim',
  'Garcia',
  'Brennan',
  'Haddad',
  'Castillo',
  'Walsh',
  'Tanaka',
  'Moreau',
  'Reyes',
  'Novak',
  'Adeyemi',
  'Fischer',
  'Ortiz',
] as const;

export const personName = (random: Random): { firstName: string; lastName: string } => ({
  firstName: random.pick(FIRST_NAMES),
  lastName: random.pick(LAST_NAMES),
});

export const slugify = (text: string): string =>
  text
    .toLowerCase()
    .normalize('NFKD')
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '');

export interface LocationIdentity {
  id: string;
  name: string;
}

/** Distinct names for indexes 0…359 of one seed (a seeded permutation of street × kind), numbered beyond. */
export const locationIdentity = (seed: number, index: number): LocationIdentity => {
  const combos = new Random(seed, 'location-names').shuffle(
    STREETS.flatMap((street) => KINDS.map((kind) => `${street} ${kind}`)),
  );
  const round = Math.floor(index / combos.length);
  const base = combos[index % combos.length]!;
  const name = round === 0 ? base : `${base} ${round + 1}`;
  return { id: `loc-${slugify(name)}`, name };
};

export interface StaffMember extends UserDetails {
  id: string;
  firstName: string;
  lastName: string;
}

export interface LocationProfile extends LocationIdentity {
  metro: Metro;
  /** The first is the general manager (counts), then the kitchen manager, then receivers and cooks. */
  staff: StaffMember[];
  /** Sister locations transfers come from and go to. */
  sisters: string[];
}

export const buildLocationProfile = (random: Random, seed: number, index: number): LocationProfile => {
  const identity = locationIdentity(seed, index);
  const staff: StaffMember[] = [];
  const size = random.int(6, 9);
  for (let i = 0; i < size; i++) staff.push({ id: random.uuid(), ...personName(random) });
  const sisters = [1, 2, 3].map((offset) => locationIdentity(seed, index + offset).name);
  return { ...identity, metro: random.pick(METROS), staff, sisters };
};
