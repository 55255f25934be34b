import type {
  Fee,
  PurchaseOrder,
  PurchaseOrderStatus,
  PurchasingEntityDiscount,
  PurchasingItemDiscount,
  ReceivedEvent,
  Supplier,
  Tax,
} from '../records/schemas.js';
import type { CatalogItem, ReceivingUnit } from './catalog.js';
import type { StaffMember } from './location-profile.js';
import { adjustmentAmount, type LineSummary, lineMoney, orderMoney, round2 } from './money.js';
import { Random } from './random.js';
import { DAY, HOUR, localDay, localTime, localWeekday, MINUTE, type World } from './world.js';

/** A RECEIVE entry promised by a received event; the inventory ledger writes it when its time comes. */
export interface PlannedReceipt {
  at: number;
  id: string;
  item: CatalogItem;
  purchaseOrderId: string;
  purchaseOrderNumber: number;
  supplier: Supplier;
  /** Base units received (received quantity × quantity in unit). */
  quantity: number;
  quantityInUnit: number;
  receivingUnitCost: number;
  /** Landed cost of one base unit. */
  landedUnitCost: number;
  user: StaffMember;
}

export interface PlannedOrder {
  order: PurchaseOrder;
  receipts: PlannedReceipt[];
}

const SUPPLIER_NOTES = [
  'Deliver to the back door before 10 AM.',
  'Please call 30 minutes before arrival.',
  'Dock closes at 2 PM.',
  'Substitutions OK if same brand and pack size.',
  'No substitutions, please.',
  'Leave the invoice with the kitchen manager.',
  'Standing order, same as last week.',
  'Ring the buzzer at the alley entrance.',
];
const RECEIVING_NOTES = [
  'All temps OK.',
  'Invoice matched.',
  'One box crushed, product OK.',
  'Driver arrived late.',
  'Checked in at the back door.',
  'Stored in the walk-in.',
];

/** How the order's life goes, decided up front; the cutoff then says how far it got. */
type Fate = 'full' | 'split' | 'backorder' | 'voided';

interface Line {
  item: CatalogItem;
  unit: ReceivingUnit;
  quantity: number;
  baseCost: number;
  taxes: Tax[];
  fees: Fee[];
  discounts: PurchasingItemDiscount[];
}

/** Sets the amount a percentage adjustment comes to, so the record shows both (see money.ts). */
const settle = <T extends Tax | Fee | PurchasingItemDiscount | PurchasingEntityDiscount>(
  adjustments: T[],
  base: number,
): void => {
  for (const adjustment of adjustments) {
    if (adjustment.percentageValue !== null && adjustment.percentageValue !== undefined) {
      adjustment.absoluteValue = adjustmentAmount(adjustment, base);
    }
  }
};

/** The next delivery morning `lead` business days after `at` (suppliers do not deliver on Sundays). */
const deliveryMorning = (world: World, random: Random, at: number, lead: number): number => {
  let day = localDay(world, at);
  for (let left = lead; left > 0; ) {
    day += 1;
    if (localWeekday(world, localTime(world, day, 12)) !== 0) left -= 1;
  }
  return localTime(world, day, random.between(6, 11));
};

const chooseLines = (world: World, random: Random, supplierIndex: number, dayIndex: number): Line[] => {
  const offered = world.catalog.bySupplier[supplierIndex]!;
  const wanted = Math.min(offered.length, 1 + random.count(random.between(0.5, 6.5)));
  const chosen: number[] = [];
  while (chosen.length < wanted) {
    const candidate = random.pick(offered);
    if (!chosen.includes(candidate)) chosen.push(candidate);
  }
  const { metro } = world.profile;
  const taxStyle = world.suppliers[supplierIndex]!.kind.taxStyle;
  const inflation = 1 + (0.04 * dayIndex) / 365;
  return chosen.map((index) => {
    const item = world.catalog.items[index]!;
    const caseUnit = item.caseUnit!;
    const split = item.splitUnit !== null && random.chance(0.08);
    const unit = split ? item.splitUnit! : caseUnit;
    const quantity = split
      ? random.int(2, Math.max(2, Math.min(24, Math.floor(caseUnit.quantityInUnit / 2))))
      : Math.max(1, Math.round(item.usualCases * random.between(0.5, 1.6)));
    const price = split ? (item.casePrice / caseUnit.quantityInUnit) * 1.12 : item.casePrice;
    const baseCost = round2(price * inflation * random.between(0.97, 1.04));
    const taxes: Tax[] =
      item.taxable && taxStyle === 'item' && metro.salesTax > 0
        ? [{ name: 'Sales Tax', absoluteValue: null, percentageValue: metro.salesTax }]
        : [];
    const fees: Fee[] = [];
    if (item.container && metro.deposit > 0) {
      fees.push({
        name: metro.state === 'CA' ? 'CRV' : 'Container Deposit',
        absoluteValue: round2(metro.deposit * quantity * unit.quantityInUnit),
        percentageValue: null,
        isTaxable: false,
      });
    }
    if (split && random.chance(0.5)) {
      fees.push({ name: 'Split Case Fee', absoluteValue: 2.5, percentageValue: null, isTaxable: true });
    }
    const discounts: PurchasingItemDiscount[] = [];
    if (random.chance(0.05)) {
      discounts.push(
        random.chance(0.5)
          ? { name: 'Promo', absoluteValue: null, percentageValue: random.pick([5, 10, 15]) }
          : {
              name: 'Manufacturer Rebate',
              absoluteValue: round2(round2(quantity * baseCost) * random.between(0.02, 0.1)),
              percentageValue: null,
            },
      );
    }
    return { item, unit, quantity, baseCost, taxes, fees, discounts };
  });
};

const orderAdjustments = (world: World, random: Random, supplierIndex: number, estimate: number) => {
  const kind = world.suppliers[supplierIndex]!.kind;
  const fees: Fee[] = [];
  if (kind.deliveryFee > 0 && estimate < 300 && random.chance(0.75)) {
    fees.push({
      name: 'Delivery Fee',
      absoluteValue: kind.deliveryFee,
      percentageValue: null,
      isTaxable: kind.taxStyle === 'order',
    });
  }
  if (kind.fuelSurcharge && random.chance(0.25)) {
    fees.push({
      name: 'Fuel Surcharge',
      absoluteValue: null,
      percentageValue: random.pick([1.5, 2, 2.5, 3]),
      isTaxable: false,
    });
  }
  const discounts: PurchasingEntityDiscount[] = [];
  if (random.chance(0.08)) {
    discounts.push({
      name: 'Prompt Payment Discount',
      absoluteValue: null,
      percentageValue: 2,
      combineWithItemDiscounts: true,
    });
  }
  if (estimate > 1000 && random.chance(0.3)) {
    discounts.push({
      name: 'Volume Discount',
      absoluteValue: null,
      percentageValue: 3,
      combineWithItemDiscounts: false,
    });
  }
  if (random.chance(0.03)) {
    discounts.push({
      name: 'Credit Memo',
      absoluteValue: round2(random.between(5, 40)),
      percentageValue: null,
      combineWithItemDiscounts: true,
    });
  }
  const rate = world.profile.metro.salesTax;
  const taxes: Tax[] =
    kind.taxStyle === 'order' && rate > 0
      ? [{ name: 'Sales Tax', absoluteValue: null, percentageValue: rate }]
      : [];
  return { taxes, fees, discounts };
};

/** Splits a line over deliveries: [first, second] received quantities. */
const splitReceipt = (random: Random, fate: Fate, ordered: number): [number, number] => {
  if (fate === 'full') return [ordered, 0];
  const roll = random.next();
  const first = roll < 0.6 ? ordered : roll < 0.85 ? Math.floor(ordered * random.between(0.3, 0.8)) : 0;
  return [first, fate === 'split' ? ordered - first : 0];
};

const iso = (at: number): string => new Date(at).toISOString();

const NEVER = Number.POSITIVE_INFINITY;

/** One delivery's receiving, decided when the order is made. */
interface Delivery {
  /** Whole minute the receiving was submitted: its RECEIVE entries and order update lie in that minute. */
  receivedAt: number;
  /** The order's update after the receiving (the last thing of the delivery). */
  doneAt: number;
  events: { line: number; event: ReceivedEvent }[];
  receipts: PlannedReceipt[];
}

/**
 * One purchase order created at `createdAt`, as it stands at the cutoff, and the RECEIVE entries its received
 * events promise (all before the cutoff). Its whole life (submission, deliveries, voiding, payment, archiving) is
 * drawn up front from its own random stream (seed, location, number), whatever the cutoff: the cutoff only says
 * how far the life got. So a later cutoff shows the same order further along, and modifiedDate is the time of
 * the last change before the cutoff.
 */
export const planOrder = (world: World, createdAt: number, number: number): PlannedOrder => {
  const { cutoff, options } = world;
  const random = new Random(options.seed, options.locationIndex, 'order', number);
  const supplierIndex = random.weighted(world.supplierWeights);
  const profile = world.suppliers[supplierIndex]!;
  const supplier = profile.supplier;
  const id = random.uuid();
  const lines = chooseLines(world, random, supplierIndex, localDay(world, createdAt));

  // Lifecycle.
  const roll = random.next();
  const fate: Fate = roll < 0.035 ? 'voided' : roll < 0.085 ? 'backorder' : roll < 0.165 ? 'split' : 'full';
  const editAt = createdAt + random.between(1, 30) * MINUTE;
  // Most orders go out within the hour; many drafts wait for someone to review and send them.
  const delayRoll = random.next();
  let submitAt =
    createdAt +
    (delayRoll < 0.5
      ? random.between(5, 60) * MINUTE
      : delayRoll < 0.7
        ? random.between(1, 20) * HOUR
        : random.between(1, 4) * DAY);
  let voidAt = NEVER;
  if (fate === 'voided') {
    if (random.chance(0.4)) {
      voidAt = createdAt + random.between(10, 120) * MINUTE;
      submitAt = NEVER;
    } else voidAt = submitAt + random.between(1, 48) * HOUR;
  }
  const lead = random.int(profile.kind.leadDays[0], profile.kind.leadDays[1]);
  const firstDelivery = deliveryMorning(world, random, submitAt === NEVER ? createdAt : submitAt, lead);
  const late = random.chance(0.1) ? DAY : 0;
  const arrivals = fate === 'voided' ? [] : [firstDelivery + late];
  if (fate === 'split') arrivals.push(deliveryMorning(world, random, firstDelivery + late, random.int(2, 4)));

  const receivedBy = lines.map((line) => splitReceipt(random, fate, line.quantity));
  if (fate === 'split' || fate === 'backorder') {
    // A delivery brings something; a backorder leaves something behind (when there is more than one unit).
    if (receivedBy.every(([first]) => first === 0)) receivedBy[0] = [lines[0]!.quantity, 0];
    const last = lines.length - 1;
    if (fate === 'backorder' && receivedBy.every(([first], i) => first === lines[i]!.quantity)) {
      receivedBy[last] = [last > 0 ? 0 : Math.floor(lines[last]!.quantity / 2), 0];
      if (receivedBy[0]![0] === 0) receivedBy[0] = [lines[0]!.quantity, 0];
    }
  }

  // Money.
  const summaries: LineSummary[] = [];
  for (const line of lines) {
    const money = lineMoney(line.quantity, line.baseCost, line.taxes, line.fees, line.discounts);
    settle(line.discounts, money.subtotal);
    settle(line.fees, money.subtotal);
    settle(line.taxes, money.taxBase);
    summaries.push({
      quantity: line.quantity,
      subtotal: money.subtotal,
      total: money.total,
      hasItemDiscounts: line.discounts.length > 0,
    });
  }
  const entity = orderAdjustments(
    world,
    random,
    supplierIndex,
    summaries.reduce((sum, line) => sum + line.total, 0),
  );
  const hasOrderAdjustments = entity.taxes.length + entity.fees.length + entity.discounts.length > 0;
  const distributionStrategies =
    hasOrderAdjustments || random.chance(0.5)
      ? {
          taxDistributionStrategy: world.strategies.tax,
          feesDistributionStrategy: world.strategies.fees,
          discountsDistributionStrategy: world.strategies.discounts,
        }
      : undefined;
  const money = orderMoney(summaries, entity, distributionStrategies);
  for (const discount of entity.discounts) {
    settle(
      [discount],
      discount.combineWithItemDiscounts === false ? money.undiscountedTotal : money.subtotalCost,
    );
  }
  settle(entity.fees, money.subtotalCost);
  settle(entity.taxes, money.taxBase);

  // Every delivery's receiving: checked in for a while, then submitted at once (a whole minute); the RECEIVE
  // entries follow a few seconds apart (at most 8 lines × 5 s) and the order update within the same minute, so
  // a cutoff (a whole day) sees all of a delivery or none of it.
  const receiver = random.pick(world.profile.staff.slice(1, 4));
  const deliveries: Delivery[] = arrivals.map((arrival, delivery) => {
    const receivedAt = Math.floor((arrival + random.between(10, 45) * MINUTE) / MINUTE) * MINUTE;
    let clock = receivedAt;
    const events: Delivery['events'] = [];
    const receipts: PlannedReceipt[] = [];
    lines.forEach((line, i) => {
      const quantity = receivedBy[i]![delivery]!;
      if (quantity <= 0) return;
      clock += random.between(1, 5) * 1000;
      const landedCost = money.landedCosts[i]!;
      const receiptId = random.uuid();
      events.push({
        line: i,
        event: {
          receivedQuantity: quantity,
          receivedUnit: { ...line.unit },
          receivedCosts: {
            baseCost: line.baseCost,
            subtotal: round2(quantity * line.baseCost),
            total: round2((summaries[i]!.total * quantity) / line.quantity),
            landedCost,
          },
          inventoryHistoryId: receiptId,
        },
      });
      receipts.push({
        at: clock,
        id: receiptId,
        item: line.item,
        purchaseOrderId: id,
        purchaseOrderNumber: number,
        supplier,
        quantity: quantity * line.unit.quantityInUnit,
        quantityInUnit: line.unit.quantityInUnit,
        receivingUnitCost: line.baseCost,
        landedUnitCost: landedCost / line.unit.quantityInUnit,
        user: receiver,
      });
    });
    return { receivedAt, doneAt: clock + random.between(1, 15) * 1000, events, receipts };
  });

  // Later changes: payment (net terms) and archiving once the order is settled.
  const lastDelivery = deliveries[deliveries.length - 1]?.doneAt ?? NEVER;
  const settledAt = fate === 'voided' ? voidAt : lastDelivery;
  const payRoll = random.next();
  const payAt =
    fate === 'voided'
      ? NEVER
      : payRoll < 0.03
        ? submitAt + random.between(1, 60) * MINUTE // prepaid
        : fate === 'backorder'
          ? payRoll < 0.25
            ? settledAt + random.between(3, 30) * DAY
            : NEVER
          : payRoll < 0.95
            ? settledAt + random.between(0, 35) * DAY
            : NEVER;
  const archiveAt = random.chance(fate === 'backorder' ? 0.5 : 0.8)
    ? Math.max(settledAt, payAt === NEVER ? settledAt : payAt) + random.between(45, 120) * DAY
    : NEVER;
  const showsExpectedAsDraft = random.chance(0.5);
  const supplierNotes = random.chance(0.45) ? random.pick(SUPPLIER_NOTES) : '';
  const externalRoll = random.next();
  const invoice = random.chance(0.85) ? `INV-${random.int(100000, 9999999)}` : null;
  const receivingNote = random.chance(0.3) ? random.pick(RECEIVING_NOTES) : undefined;

  // The order as the cutoff sees it.
  const submitted = submitAt < cutoff;
  const voided = voidAt < cutoff;
  const events: ReceivedEvent[][] = lines.map(() => []);
  const receivedTotal = lines.map(() => 0);
  const receipts: PlannedReceipt[] = [];
  let modified = createdAt;
  if (editAt < cutoff) modified = editAt;
  if (submitted) modified = Math.max(modified, submitAt);
  if (voided) modified = Math.max(modified, voidAt);
  for (const delivery of deliveries) {
    if (delivery.receivedAt >= cutoff) break;
    for (const { line, event } of delivery.events) {
      events[line]!.push(event);
      receivedTotal[line]! += event.receivedQuantity;
    }
    for (const receipt of delivery.receipts) receipts.push(receipt);
    modified = Math.max(modified, delivery.doneAt);
  }
  const paid = payAt < cutoff;
  if (paid) modified = Math.max(modified, payAt);
  const archived = archiveAt < cutoff;
  if (archived) modified = Math.max(modified, archiveAt);
  const fullyReceived = lines.every((line, i) => receivedTotal[i] === line.quantity);
  const status: PurchaseOrderStatus = voided
    ? 'VOIDED'
    : !submitted
      ? 'DRAFT'
      : receipts.length === 0
        ? 'ORDERED'
        : fullyReceived
          ? 'RECEIVED'
          : 'PARTIALLY_RECEIVED';

  const order: PurchaseOrder = {
    id,
    createdDate: iso(createdAt),
    modifiedDate: iso(modified),
    archived,
    status,
    paid,
    supplier,
    platformGeneratedPurchaseOrderNumber: number,
    items: lines.map((line, i) => ({
      itemVersionId: line.item.itemVersionId,
      name: line.item.name,
      supplierItemId:
        line.item.offers.find((offer) => offer.supplierIndex === supplierIndex)?.supplierItemId ?? null,
      orderedItemInfo: {
        orderedQuantity: line.quantity,
        orderedUnit: { ...line.unit },
        orderedCost: {
          baseCost: line.baseCost,
          subtotal: summaries[i]!.subtotal,
          total: summaries[i]!.total,
          landedCost: money.landedCosts[i]!,
        },
      },
      taxes: line.taxes,
      fees: line.fees,
      discounts: line.discounts,
      receivedEvents: events[i]!,
    })),
    purchaseOrderTotals: {
      itemsSubtotal: money.itemsSubtotal,
      subtotalCost: money.subtotalCost,
      totalCost: money.totalCost,
    },
    purchasingEntityInfo: entity,
    supplierNotes,
  };
  if (distributionStrategies !== undefined) order.distributionStrategies = distributionStrategies;
  if (status !== 'DRAFT' || showsExpectedAsDraft)
    order.expectedDate = iso(firstDelivery - (firstDelivery % DAY));
  if (externalRoll < 0.35) {
    order.externalPurchaseOrderNumber = `${profile.code}-${String(number).padStart(6, '0')}`;
  } else if (externalRoll < 0.7) order.externalPurchaseOrderNumber = null;
  if (receipts.length > 0) {
    order.externalInvoiceNumber = invoice;
    if (receivingNote !== undefined) {
      order.receivingNotes =
        status === 'PARTIALLY_RECEIVED' ? 'Short on delivery, rest backordered.' : receivingNote;
    }
  }
  return { order, receipts };
};
