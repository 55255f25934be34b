// Generates a small location with whatever src/seed/money.ts is loaded, checks it, and prints the findings.
import { createLocationCheck } from '../../../src/check/location-check.js';
import { collectLocation } from '../../seed/collect.js';

const location = collectLocation({ seed: 5, days: 21, ordersPerWeek: 20, items: 20, suppliers: 3 });
const check = createLocationCheck(location.id);
for (const entry of location.entries) check.inventoryEntry(entry);
for (const order of location.orders) check.purchaseOrder(order);
const first = location.orders[0]!.items[0]!;
process.stdout.write(
  JSON.stringify({
    orders: location.orders.length,
    quantity: first.orderedItemInfo.orderedQuantity,
    baseCost: first.orderedItemInfo.orderedCost?.baseCost,
    subtotal: first.orderedItemInfo.orderedCost?.subtotal,
    findings: check.finish(),
  }),
);
