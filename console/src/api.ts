// Shapes come from the server's one schema source (type-only imports: nothing of the server is bundled).
import type { InventoryHistoryLogEntry, PurchaseOrder } from '../../src/records/schemas.js';
import type {
  IntegrationReport,
  JournalList,
  LocationCharts,
  LocationOverview,
  RateLimitState,
} from '../../src/sandbox/admin-schemas.js';
import type { FaultRule, FaultRulesState } from '../../src/sandbox/fault-schemas.js';
import type { JournalEntry } from '../../src/sandbox/journal-entry.js';
import type { Finding } from '../../src/sandbox/report.js';
import type { ClockView } from '../../src/shared/virtual-clock.js';
import { call } from './call.js';

export { ApiError, useToken } from './call.js';

export type {
  ClockView,
  FaultRule,
  FaultRulesState,
  Finding,
  InventoryHistoryLogEntry,
  JournalEntry,
  LocationCharts,
  LocationOverview,
  PurchaseOrder,
};

export interface Page<R> {
  currentPageToken: string;
  nextPageToken: string;
  data: R[];
}

const TOKEN_KEY = 'larder-admin-token';

/**
 * The admin token arrives in the URL fragment (`/console#token=…`), which browsers never send to a server, so it
 * stays out of server logs and Referer headers. It is kept for this tab only and removed from the address bar.
 */
export const takeToken = (): string | undefined => {
  const match = /(?:^#|&)token=([^&]+)/.exec(location.hash);
  if (match?.[1] !== undefined) {
    sessionStorage.setItem(TOKEN_KEY, decodeURIComponent(match[1]));
    history.replaceState(null, '', `${location.pathname}${location.search}#/locations`);
    // replaceState fires no hashchange: the views that follow the route are told here.
    dispatchEvent(new HashChangeEvent('hashchange'));
  }
  return sessionStorage.getItem(TOKEN_KEY) ?? undefined;
};

/** Whether the address holds a token to take (a console link opened in a tab already showing the console). */
export const hasTokenLink = () => /(?:^#|&)token=/.test(location.hash);

export const storeToken = (token: string) => sessionStorage.setItem(TOKEN_KEY, token);
export const forgetToken = () => sessionStorage.removeItem(TOKEN_KEY);

export const query = (params: Record<string, string | number | undefined>): string => {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(params))
    if (value !== undefined && value !== '') search.set(name, String(value));
  const text = search.toString();
  return text === '' ? '' : `?${text}`;
};

const loc = (id: string) => `/locations/${encodeURIComponent(id)}`;

export const api = {
  clock: () => call<ClockView>('GET', '/clock'),
  advanceClock: (seconds: number) => call<ClockView>('POST', '/clock/advance', { seconds }),
  setClock: (now: string, frozen: boolean) => call<ClockView>('PUT', '/clock', { now, frozen }),
  resetClock: () => call<ClockView>('DELETE', '/clock'),
  locations: () => call<{ locations: LocationOverview[] }>('GET', '/locations'),
  searchOrders: (location: string, body: unknown, pageToken: string, pageSize: number) =>
    call<Page<PurchaseOrder>>(
      'POST',
      `${loc(location)}/purchaseOrders/search${query({ pageToken, pageSize })}`,
      body,
    ),
  order: (location: string, id: string) =>
    call<PurchaseOrder>('GET', `${loc(location)}/purchaseOrders/${encodeURIComponent(id)}`),
  entry: (location: string, id: string) =>
    call<InventoryHistoryLogEntry>('GET', `${loc(location)}/inventoryHistory/${encodeURIComponent(id)}`),
  charts: (location: string, days: number, itemVersionId?: string) =>
    call<LocationCharts>('GET', `${loc(location)}/charts${query({ days, itemVersionId })}`),
  requests: (filter: { clientId?: string; operation?: string; status?: string; limit: number }) =>
    call<JournalList>('GET', `/requests${query({ ...filter })}`),
  faults: () => call<FaultRulesState>('GET', '/faults'),
  addFault: (rule: FaultRule) => call<FaultRulesState>('POST', '/faults', rule),
  removeFault: (id: string) => call<FaultRulesState>('DELETE', `/faults/${encodeURIComponent(id)}`),
  clearFaults: () => call<FaultRulesState>('DELETE', '/faults'),
  rateLimits: () => call<RateLimitState>('GET', '/rate-limits'),
  clearRateLimits: () => call<RateLimitState>('DELETE', '/rate-limits'),
  clearJournal: () => call<{ cleared: true; recording: boolean }>('DELETE', '/requests'),
  reset: () => call<{ reset: true; clock: ClockView }>('POST', '/reset'),
  report: (clientId: string) => call<IntegrationReport>('GET', `/report${query({ clientId })}`),
};
