/** What `larder check` can find wrong with a location's records. */
export const FINDING_KINDS = [
  /** A stored record that cannot be read as its interface shape. */
  'unreadable',
  /** A received event and its RECEIVE entry do not point at each other, or disagree. */
  'receive-link',
  /** Money that does not add up (see src/seed/money.ts for the model). */
  'totals',
  'negative-on-hand',
  /** modifiedDate before createdDate. */
  'dates',
  'over-received',
  /** A status that the received events contradict. */
  'status',
] as const;
export type FindingKind = (typeof FINDING_KINDS)[number];

export interface Finding {
  locationId: string;
  kind: FindingKind;
  recordType: 'purchaseOrder' | 'inventoryEntry';
  /** Purchase order id or inventoryHistoryLogId. */
  recordId: string;
  message: string;
}
