import type { InventoryHistoryLogEntry, PurchaseOrder } from '../records/schemas.js';
import type { Finding, FindingKind } from './findings.js';
import { orderMoneyProblems } from './order-money.js';

/** Quantities are compared to 1e-6: on-hand values are sums of decimals. */
const EPSILON = 1e-6;

interface ReceiveEntry {
  purchaseOrderId: string | null;
  itemVersionId: string;
  supplierId: string | undefined;
  /** On-hand change against the item's previous entry; undefined when it cannot be known. */
  change: number | undefined;
  createdAt: number;
  /** The purchase order whose received event points here (the first one, when several do). */
  claimedBy?: string;
}

interface ItemState {
  createdAt: number;
  onHand: number;
  /** An entry of this item was edited after creation: the scan order is then not the event order. */
  edited: boolean;
}

export interface LocationCheck {
  /** Feed every inventory entry first, in the store's (modifiedDate, id) order. */
  inventoryEntry(entry: InventoryHistoryLogEntry): void;
  /** Then every purchase order, in any order. */
  purchaseOrder(order: PurchaseOrder): void;
  /** Findings so far, plus RECEIVE entries no received event claimed. */
  finish(): Finding[];
  /** Reports a record that could not be read at all. */
  unreadable(recordType: Finding['recordType'], recordId: string, message: string): void;
}

/**
 * The consistency rules of `larder check` over one location. Memory holds one small record per RECEIVE entry
 * (to match received events in both directions) and one per item (for the running balance); records stream.
 *
 * A RECEIVE entry's quantity is not a field: it is the change of the item's `quantityOnHand` since the item's
 * previous entry. That change is verified only when entries arrive in event order, i.e. when none of the item's
 * entries was modified after creation (generated data never is).
 */
export const createLocationCheck = (locationId: string): LocationCheck => {
  const findings: Finding[] = [];
  const receives = new Map<string, ReceiveEntry>();
  const items = new Map<string, ItemState>();
  const report = (
    kind: FindingKind,
    recordType: Finding['recordType'],
    recordId: string,
    message: string,
  ) => {
    findings.push({ locationId, kind, recordType, recordId, message });
  };

  const inventoryEntry = (entry: InventoryHistoryLogEntry): void => {
    const id = entry.inventoryHistoryLogId.toLowerCase();
    const createdAt = Date.parse(entry.createdDate);
    const modifiedAt = Date.parse(entry.modifiedDate);
    if (modifiedAt < createdAt) {
      report(
        'dates',
        'inventoryEntry',
        id,
        `modifiedDate ${entry.modifiedDate} is before createdDate ${entry.createdDate}`,
      );
    }
    const onHand = entry.quantityInfo.quantityOnHand;
    if (onHand < -EPSILON) {
      report(
        'negative-on-hand',
        'inventoryEntry',
        id,
        `quantityOnHand is ${onHand} for item ${entry.itemVersionId}`,
      );
    }
    const itemId = entry.itemVersionId.toLowerCase();
    const previous = items.get(itemId);
    const edited = modifiedAt !== createdAt;
    const change =
      previous !== undefined && createdAt > previous.createdAt ? onHand - previous.onHand : undefined;
    if (previous === undefined) items.set(itemId, { createdAt, onHand, edited });
    else {
      previous.edited ||= edited;
      if (createdAt >= previous.createdAt) {
        previous.createdAt = createdAt;
        previous.onHand = onHand;
      }
    }
    if (entry.adjustmentType !== 'RECEIVE') return;
    const purchaseOrderId = entry.purchaseOrderId?.toLowerCase() ?? null;
    if (purchaseOrderId === null) {
      report('receive-link', 'inventoryEntry', id, 'RECEIVE entry has no purchaseOrderId');
    }
    receives.set(id, {
      purchaseOrderId,
      itemVersionId: itemId,
      supplierId: entry.supplier?.id.toLowerCase(),
      change,
      createdAt,
    });
  };

  const checkReceipts = (order: PurchaseOrder, orderId: string): void => {
    const supplierId = order.supplier.id.toLowerCase();
    const createdAt = Date.parse(order.createdDate);
    order.items.forEach((item, i) => {
      const itemId = item.itemVersionId.toLowerCase();
      item.receivedEvents.forEach((event, j) => {
        const path = `items[${i}].receivedEvents[${j}]`;
        const link = (message: string) =>
          report('receive-link', 'purchaseOrder', orderId, `${path}: ${message}`);
        if (event.inventoryHistoryId === undefined) {
          if (event.receivedQuantity !== 0) link('has no inventoryHistoryId');
          return;
        }
        const entryId = event.inventoryHistoryId.toLowerCase();
        const entry = receives.get(entryId);
        if (entry === undefined) {
          link(`no RECEIVE entry ${entryId} at this location`);
          return;
        }
        if (entry.claimedBy !== undefined) {
          link(`RECEIVE entry ${entryId} is already linked from ${entry.claimedBy}`);
          return;
        }
        entry.claimedBy = orderId;
        if (entry.purchaseOrderId !== null && entry.purchaseOrderId !== orderId) {
          link(`RECEIVE entry ${entryId} names purchase order ${entry.purchaseOrderId}`);
        }
        if (entry.itemVersionId !== itemId)
          link(`RECEIVE entry ${entryId} is for item ${entry.itemVersionId}`);
        if (entry.supplierId !== undefined && entry.supplierId !== supplierId) {
          link(`RECEIVE entry ${entryId} names supplier ${entry.supplierId}, the order ${supplierId}`);
        }
        if (entry.createdAt < createdAt) link(`RECEIVE entry ${entryId} is older than the order`);
        const perUnit =
          event.receivedUnit?.quantityInUnit ?? item.orderedItemInfo.orderedUnit.quantityInUnit ?? 1;
        const expected = event.receivedQuantity * perUnit;
        if (
          entry.change !== undefined &&
          !items.get(itemId)?.edited &&
          Math.abs(entry.change - expected) > EPSILON
        ) {
          link(
            `RECEIVE entry ${entryId} adds ${round6(entry.change)} on hand, the event ${event.receivedQuantity} × ${perUnit} = ${round6(expected)}`,
          );
        }
      });
    });
  };

  const checkQuantitiesAndStatus = (order: PurchaseOrder, orderId: string): void => {
    let anyReceived = false;
    let allReceived = true;
    order.items.forEach((item, i) => {
      const info = item.orderedItemInfo;
      const orderedPerUnit = info.orderedUnit.quantityInUnit ?? 1;
      const ordered = info.orderedQuantity * orderedPerUnit;
      let received = 0;
      for (const event of item.receivedEvents) {
        received += event.receivedQuantity * (event.receivedUnit?.quantityInUnit ?? orderedPerUnit);
        if (event.receivedQuantity > 0) anyReceived = true;
      }
      if (received > ordered + EPSILON) {
        report(
          'over-received',
          'purchaseOrder',
          orderId,
          `items[${i}] (${item.name}): received ${round6(received)}, ordered ${round6(ordered)} (in base units)`,
        );
      }
      if (received < ordered - EPSILON) allReceived = false;
    });
    const status = order.status;
    const contradiction =
      (status === 'DRAFT' || status === 'ORDERED' || status === 'VOIDED') && anyReceived
        ? `status ${status}, but items were received`
        : status === 'RECEIVED' && !anyReceived
          ? 'status RECEIVED, but nothing was received'
          : status === 'RECEIVED' && !allReceived
            ? 'status RECEIVED, but some items are not fully received'
            : status === 'PARTIALLY_RECEIVED' && !anyReceived
              ? 'status PARTIALLY_RECEIVED, but nothing was received'
              : status === 'PARTIALLY_RECEIVED' && allReceived
                ? 'status PARTIALLY_RECEIVED, but every item is fully received'
                : undefined;
    if (contradiction !== undefined) report('status', 'purchaseOrder', orderId, contradiction);
  };

  return {
    inventoryEntry,
    purchaseOrder: (order) => {
      const orderId = order.id.toLowerCase();
      if (Date.parse(order.modifiedDate) < Date.parse(order.createdDate)) {
        report(
          'dates',
          'purchaseOrder',
          orderId,
          `modifiedDate ${order.modifiedDate} is before createdDate ${order.createdDate}`,
        );
      }
      for (const problem of orderMoneyProblems(order)) report('totals', 'purchaseOrder', orderId, problem);
      checkQuantitiesAndStatus(order, orderId);
      checkReceipts(order, orderId);
    },
    finish: () => {
      for (const [id, entry] of receives) {
        if (entry.claimedBy === undefined) {
          const order =
            entry.purchaseOrderId === null ? '' : ` (it names purchase order ${entry.purchaseOrderId})`;
          report(
            'receive-link',
            'inventoryEntry',
            id,
            `no received event links to this RECEIVE entry${order}`,
          );
        }
      }
      return findings;
    },
    unreadable: (recordType, recordId, message) => report('unreadable', recordType, recordId, message),
  };
};

const round6 = (value: number): number => Math.round(value * 1e6) / 1e6;
