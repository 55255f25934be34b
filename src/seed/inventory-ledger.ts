import type {
  InventoryHistoryAdjustmentType,
  InventoryHistoryLogEntry,
  UserDetails,
} from '../records/schemas.js';
import type { PlannedAdjustment } from './adjustment-plan.js';
import type { CatalogItem } from './catalog.js';
import { round2 } from './money.js';
import type { PlannedReceipt } from './purchase-orders.js';
import type { Random } from './random.js';
import type { World } from './world.js';

/** Share of on-hand stock a decreasing adjustment takes, as a [min, max) range. */
const DECREASES: Partial<Record<InventoryHistoryAdjustmentType, readonly [number, number]>> = {
  WASTED: [0.02, 0.12],
  EXPIRE: [0.05, 0.25],
  DAMAGE: [0.02, 0.1],
  LOSS: [0.01, 0.06],
  THEFT: [0.01, 0.05],
  SAMPLED: [0.005, 0.03],
  TRANSFERRED_INTERNALLY: [0.05, 0.2],
  TRANSFERRED_TO_OTHER_LOCATION: [0.05, 0.25],
  AUTO_LINK_TRANSFER_OUT: [0.05, 0.25],
};

const NOTES: Partial<Record<InventoryHistoryAdjustmentType, readonly (string | null)[]>> = {
  WASTED: [
    'Spoiled',
    'Dropped during prep',
    'Over-prepped, end of night',
    'Burnt',
    'Failed quality check',
    null,
  ],
  EXPIRE: ['Past use-by date', 'Expired in walk-in', null],
  DAMAGE: ['Damaged on delivery', 'Crushed case', 'Leaking package', null],
  LOSS: ['Unaccounted for after count', 'Misplaced in dry storage', null],
  THEFT: ['Reported missing from storage', 'Theft reported to GM'],
  SAMPLED: ['Staff tasting', 'Menu tasting', 'Vendor tasting'],
  RESTOCK: ['Returned to stock from the line', 'Unused catering return'],
  EXTERNAL: ['Adjusted by inventory integration', 'Synced from recipe costing'],
  TRANSFERRED_INTERNALLY: ['Moved to bar', 'Moved to catering kitchen', 'Moved to patio station'],
  PRODUCED_MANUALLY: ['Morning prep batch', 'Afternoon prep batch', null],
  COUNT: ['Weekly count', null],
  CYCLE_COUNT: ['Spot check', 'Spot check, walk-in'],
};

const SYSTEM_USER: UserDetails = { id: null, firstName: null, lastName: null };

/**
 * The location's stock, item by item: turns planned receipts and adjustments into inventory history entries
 * with a running `quantityOnHand` that never goes below zero. State is per catalog item, never per record.
 * Entries get strictly increasing times, so the (modifiedDate, id) order the store keeps is the order of events.
 */
export class InventoryLedger {
  private readonly onHand: Float64Array;
  private readonly unitCost: Float64Array;
  private readonly receivingUnitCost: Float64Array;
  private last = Number.NEGATIVE_INFINITY;
  private transfers = 1000;

  constructor(
    private readonly world: World,
    private readonly random: Random,
  ) {
    const items = world.catalog.items;
    this.onHand = new Float64Array(items.length);
    this.unitCost = Float64Array.from(items, (item) => item.unitCost);
    this.receivingUnitCost = Float64Array.from(items, (item) => item.casePrice);
  }

  /** Opening stock of every item: INITIAL entries at the very start of history. */
  opening(): InventoryHistoryLogEntry[] {
    const items = this.world.catalog.items;
    const spacing = Math.min(1500, (6 * 3_600_000) / items.length);
    const manager = this.world.profile.staff[0]!;
    return items.map((item, i) => {
      this.onHand[item.index] = this.amount(item, item.par * this.random.between(0.4, 1));
      return this.entry(this.world.start + i * spacing, item, 'INITIAL', 'Opening inventory', manager, null);
    });
  }

  receive(receipt: PlannedReceipt): InventoryHistoryLogEntry {
    const { item } = receipt;
    this.onHand[item.index] = round4(this.onHand[item.index]! + receipt.quantity);
    this.unitCost[item.index] = receipt.landedUnitCost;
    this.receivingUnitCost[item.index] = receipt.receivingUnitCost;
    const at = this.stamp(receipt.at);
    return {
      inventoryHistoryLogId: receipt.id,
      itemVersionId: item.itemVersionId,
      createdDate: at,
      modifiedDate: at,
      notes: this.random.chance(0.7) ? `PO #${receipt.purchaseOrderNumber}` : null,
      adjustmentType: 'RECEIVE',
      supplier: receipt.supplier,
      purchaseOrderId: receipt.purchaseOrderId,
      quantityInfo: { quantityOnHand: this.onHand[item.index]!, quantityVariance: null },
      costInfo: {
        capturedCost: round2(receipt.receivingUnitCost / receipt.quantityInUnit),
        landedCost: round2(receipt.landedUnitCost),
        receivingUnitCost: receipt.receivingUnitCost,
      },
      userDetails: receipt.user,
    };
  }

  /** The entries one planned adjustment makes: none when there is nothing to take, two for a short transfer. */
  adjust(planned: PlannedAdjustment): InventoryHistoryLogEntry[] {
    const { item, type } = planned;
    const random = this.random;
    const staff = this.world.profile.staff;
    const onHand = this.onHand[item.index]!;
    const crew = random.pick(staff.slice(1));
    const notes = (): string | null => random.pick(NOTES[type] ?? [null]);
    const sister = (): string => random.pick(this.world.profile.sisters);
    const range = DECREASES[type];
    if (range !== undefined) {
      const taken = Math.min(
        onHand,
        Math.max(this.unit(item), this.amount(item, onHand * random.between(...range))),
      );
      if (taken <= 0) return [];
      this.onHand[item.index] = round4(onHand - taken);
      const note =
        type === 'TRANSFERRED_TO_OTHER_LOCATION'
          ? `Sent to ${sister()}`
          : type === 'AUTO_LINK_TRANSFER_OUT'
            ? `Transfer TR-${this.transfers++} to ${sister()}`
            : notes();
      return [
        this.entry(
          planned.at,
          item,
          type,
          note,
          type === 'AUTO_LINK_TRANSFER_OUT' ? SYSTEM_USER : crew,
          null,
        ),
      ];
    }
    switch (type) {
      case 'RESTOCK':
      case 'PRODUCED_MANUALLY': {
        const share = type === 'RESTOCK' ? random.between(0.02, 0.1) : random.between(0.5, 1.2);
        this.onHand[item.index] = round4(
          onHand + Math.max(this.unit(item), this.amount(item, item.par * share)),
        );
        return [this.entry(planned.at, item, type, notes(), crew, null)];
      }
      case 'EXTERNAL': {
        const change = Math.max(this.unit(item), this.amount(item, item.par * random.between(0.01, 0.08)));
        this.onHand[item.index] = round4(random.chance(0.5) ? onHand + change : Math.max(0, onHand - change));
        return [this.entry(planned.at, item, type, notes(), SYSTEM_USER, null)];
      }
      case 'AUTO_LINK_TRANSFER_IN': {
        const transfer = `TR-${this.transfers++}`;
        const from = sister();
        const sent = Math.max(this.unit(item), this.amount(item, item.par * random.between(0.1, 0.5)));
        this.onHand[item.index] = round4(onHand + sent);
        const entries = [
          this.entry(planned.at, item, type, `Transfer ${transfer} from ${from}`, SYSTEM_USER, null),
        ];
        if (random.chance(0.3)) {
          const missing = Math.min(
            sent,
            Math.max(this.unit(item), this.amount(item, sent * random.between(0.05, 0.3))),
          );
          this.onHand[item.index] = round4(this.onHand[item.index]! - missing);
          const note = `Short on transfer ${transfer} from ${from}`;
          entries.push(this.entry(planned.at + 60_000, item, 'MISSING_DURING_TRANSFER', note, crew, null));
        }
        return entries;
      }
      case 'COUNT':
      case 'CYCLE_COUNT': {
        // Counts are where use shows: nothing logs sales, so a weekly count finds less than expected.
        const counted =
          type === 'CYCLE_COUNT'
            ? Math.max(0, onHand + this.amount(item, onHand * random.between(-0.04, 0.01)))
            : random.chance(0.92)
              ? this.amount(item, onHand * random.between(0.3, 0.9))
              : onHand + this.amount(item, item.par * random.between(0, 0.05));
        this.onHand[item.index] = round4(counted);
        const counter = type === 'COUNT' ? staff[random.int(0, 1)]! : crew;
        return [this.entry(planned.at, item, type, notes(), counter, round4(counted - onHand))];
      }
      default:
        return [];
    }
  }

  private entry(
    at: number,
    item: CatalogItem,
    adjustmentType: InventoryHistoryAdjustmentType,
    notes: string | null,
    user: UserDetails,
    quantityVariance: number | null,
  ): InventoryHistoryLogEntry {
    const stamp = this.stamp(at);
    return {
      inventoryHistoryLogId: this.random.uuid(),
      itemVersionId: item.itemVersionId,
      createdDate: stamp,
      modifiedDate: stamp,
      notes,
      adjustmentType,
      purchaseOrderId: null,
      quantityInfo: { quantityOnHand: this.onHand[item.index]!, quantityVariance },
      costInfo: {
        capturedCost: round2(this.unitCost[item.index]!),
        landedCost: round2(this.unitCost[item.index]!),
        receivingUnitCost: item.caseUnit === null ? null : round2(this.receivingUnitCost[item.index]!),
      },
      userDetails: user,
    };
  }

  /** ISO time of an entry, nudged to stay strictly after the previous one. */
  private stamp(at: number): string {
    this.last = Math.max(Math.round(at), this.last + 1);
    return new Date(this.last).toISOString();
  }

  private unit(item: CatalogItem): number {
    return item.fractional ? 0.1 : 1;
  }

  private amount(item: CatalogItem, quantity: number): number {
    return item.fractional ? Math.round(quantity * 10) / 10 : Math.round(quantity);
  }
}

const round4 = (value: number): number => Math.round(value * 10_000) / 10_000;
