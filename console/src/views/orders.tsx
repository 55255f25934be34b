import { useContext, useEffect, useState } from 'preact/hooks';
import { PURCHASE_ORDER_STATUSES } from '../../../src/records/enums.js';
import { api, type PurchaseOrder } from '../api';
import { type Filter, type OrderSearch, PAGE_SIZES, readSearch, searchParams } from '../order-search';
import {
  Card,
  ClockMoves,
  formatDate,
  formatMoney,
  formatTime,
  href,
  Problem,
  shortId,
  useLoad,
} from '../ui';

/** The search body the retail API takes, from the form (empty fields left out). */
const searchBody = (filter: Filter) => ({
  ...(filter.statuses.length === 0 ? {} : { purchaseOrderStatuses: filter.statuses }),
  ...(filter.includeArchived ? { includeArchived: true } : {}),
  // An end without a start is sent as it is: the API names the missing start, rather than the form hiding it.
  ...(filter.startDate === '' && filter.endDate === ''
    ? {}
    : {
        updatedDateRange: {
          ...(filter.startDate === '' ? {} : { startDate: filter.startDate }),
          ...(filter.endDate === '' ? {} : { endDate: filter.endDate }),
        },
      }),
});

const received = (order: PurchaseOrder) =>
  order.items.reduce(
    (sum, item) => sum + item.receivedEvents.reduce((n, event) => n + event.receivedQuantity, 0),
    0,
  );

const OrderDetail = ({ location, id, search }: { location: string; id: string; search: OrderSearch }) => {
  const { data: order, error } = useLoad(
    () => api.order(location, id),
    [location, id, useContext(ClockMoves)],
  );
  return (
    <Card
      title={
        order === undefined
          ? 'Purchase order'
          : `Purchase order #${order.platformGeneratedPurchaseOrderNumber}`
      }
      wide
      focus
    >
      <p>
        <a href={href('orders', { location, ...searchParams(search) })}>← back to the list</a>
      </p>
      <Problem error={error} />
      {order === undefined ? null : (
        <div class="detail" data-order={order.id}>
          <dl class="facts">
            <dt>Status</dt>
            <dd>
              <span class={`status ${order.status}`}>{order.status}</span>
              {order.archived ? ' (archived)' : ''}
              {order.paid ? ', paid' : ''}
            </dd>
            <dt>Supplier</dt>
            <dd>{order.supplier.name}</dd>
            <dt>Created</dt>
            <dd>{formatTime(order.createdDate)}</dd>
            <dt>Modified</dt>
            <dd>{formatTime(order.modifiedDate)}</dd>
            <dt>Expected</dt>
            <dd>{formatDate(order.expectedDate)}</dd>
            <dt>External PO / invoice</dt>
            <dd>
              {order.externalPurchaseOrderNumber ?? '–'} / {order.externalInvoiceNumber ?? '–'}
            </dd>
            <dt>Id</dt>
            <dd class="mono">{order.id}</dd>
          </dl>
          <h3>Items</h3>
          <div class="scroll">
            <table>
              <thead>
                <tr>
                  <th>Item</th>
                  <th>Ordered</th>
                  <th>Base cost</th>
                  <th>Line total</th>
                  <th>Received events</th>
                </tr>
              </thead>
              <tbody>
                {order.items.map((item) => (
                  <tr key={item.itemVersionId}>
                    <td>
                      {item.name}
                      <div class="muted">{item.supplierItemId ?? ''}</div>
                    </td>
                    <td>
                      {item.orderedItemInfo.orderedQuantity} × {item.orderedItemInfo.orderedUnit.name}
                    </td>
                    <td class="number">{formatMoney(item.orderedItemInfo.orderedCost?.baseCost)}</td>
                    <td class="number">{formatMoney(item.orderedItemInfo.orderedCost?.total)}</td>
                    <td>
                      {item.receivedEvents.length === 0
                        ? '–'
                        : item.receivedEvents.map((event, i) => (
                            <div key={event.inventoryHistoryId ?? i}>
                              {event.receivedQuantity} {event.receivedUnit?.name ?? ''}
                              {event.inventoryHistoryId === undefined ? null : (
                                <>
                                  {' '}
                                  <a
                                    class="receive-link"
                                    href={href('entry', { location, id: event.inventoryHistoryId })}
                                  >
                                    RECEIVE {shortId(event.inventoryHistoryId)}
                                  </a>
                                </>
                              )}
                            </div>
                          ))}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <h3>Totals</h3>
          <dl class="facts">
            <dt>Items subtotal</dt>
            <dd class="number">{formatMoney(order.purchaseOrderTotals.itemsSubtotal)}</dd>
            <dt>Subtotal cost</dt>
            <dd class="number">{formatMoney(order.purchaseOrderTotals.subtotalCost)}</dd>
            <dt>Order taxes / fees / discounts</dt>
            <dd>
              {order.purchasingEntityInfo.taxes.length} / {order.purchasingEntityInfo.fees.length} /{' '}
              {order.purchasingEntityInfo.discounts.length}
            </dd>
            <dt>Total cost</dt>
            <dd class="number total">{formatMoney(order.purchaseOrderTotals.totalCost)}</dd>
          </dl>
          {order.supplierNotes === '' ? null : <p class="muted">Supplier notes: {order.supplierNotes}</p>}
        </div>
      )}
    </Card>
  );
};

/**
 * The purchase-order search as the API offers it: statuses, archived, date range, page size; keyset paging. The
 * search and its page are the route's (order-search.ts); the form is a draft of the next search until submitted.
 */
export const OrdersView = ({
  location,
  id,
  params,
}: {
  location: string;
  id: string | undefined;
  params: URLSearchParams;
}) => {
  const search = readSearch(params);
  const { filter, token, previous: tokens } = search;
  // The route's search as one value: a new URLSearchParams on every render must not read the page again.
  const shown = JSON.stringify(search);
  const go = (next: OrderSearch) => {
    window.location.hash = href('orders', { location, ...searchParams(next) });
  };
  const [draft, setDraft] = useState<Filter>(filter);
  // Back, Forward or a link to another search: the form shows the search shown.
  useEffect(() => setDraft(filter), [JSON.stringify(filter)]);
  // The answer carries the body and the page number it answers, so the page says which search it shows (and
  // never names the next page while the previous one is still on screen).
  const page = useLoad(async () => {
    const body = searchBody(filter);
    const number = tokens.length + 1;
    return { body, number, ...(await api.searchOrders(location, body, token, filter.pageSize)) };
  }, [location, shown, useContext(ClockMoves)]);
  if (id !== undefined) return <OrderDetail location={location} id={id} search={search} />;
  const toggle = (status: string) =>
    setDraft({
      ...draft,
      statuses: draft.statuses.includes(status)
        ? draft.statuses.filter((s) => s !== status)
        : [...draft.statuses, status],
    });
  return (
    <Card title="Purchase orders" wide>
      <form
        class="filters"
        onSubmit={(event) => {
          event.preventDefault();
          const next = { filter: draft, token: '', previous: [] };
          // The same search again reads it again (new orders meanwhile); the route would not change.
          if (JSON.stringify(next) === shown) page.reload();
          else go(next);
        }}
      >
        <fieldset>
          <legend>Status</legend>
          {PURCHASE_ORDER_STATUSES.map((status) => (
            <label key={status}>
              <input
                type="checkbox"
                checked={draft.statuses.includes(status)}
                onChange={() => toggle(status)}
              />{' '}
              {status}
            </label>
          ))}
          <label>
            <input
              type="checkbox"
              name="includeArchived"
              checked={draft.includeArchived}
              onChange={(e) => setDraft({ ...draft, includeArchived: e.currentTarget.checked })}
            />{' '}
            include archived
          </label>
        </fieldset>
        <label>
          Modified from
          <input
            type="date"
            name="startDate"
            value={draft.startDate}
            onInput={(e) => setDraft({ ...draft, startDate: e.currentTarget.value })}
          />
        </label>
        <label>
          to
          <input
            type="date"
            name="endDate"
            value={draft.endDate}
            onInput={(e) => setDraft({ ...draft, endDate: e.currentTarget.value })}
          />
        </label>
        <label>
          Page size
          <select
            name="pageSize"
            value={draft.pageSize}
            onChange={(e) => setDraft({ ...draft, pageSize: Number(e.currentTarget.value) })}
          >
            {PAGE_SIZES.map((size) => (
              <option key={size} value={size}>
                {size}
              </option>
            ))}
          </select>
        </label>
        <button type="submit">Search</button>
      </form>
      <Problem error={page.error} />
      {page.data === undefined ? null : (
        <>
          <p class="muted" aria-live="polite" data-search={JSON.stringify(page.data.body)}>
            <span class="result-count">{page.data.data.length}</span> order(s) on page {page.data.number}
            {page.data.nextPageToken === '' ? ' (last page)' : ''}
          </p>
          {page.data.data.length === 0 && tokens.length === 0 ? (
            <p class="empty">
              {Object.keys(page.data.body).length === 0
                ? 'No purchase orders at this location.'
                : 'No purchase order matches this search.'}
            </p>
          ) : (
            <>
              <div class="scroll">
                <table class="orders">
                  <thead>
                    <tr>
                      <th>#</th>
                      <th>Supplier</th>
                      <th>Status</th>
                      <th>Created</th>
                      <th>Modified</th>
                      <th>Items</th>
                      <th>Received</th>
                      <th>Total</th>
                    </tr>
                  </thead>
                  <tbody>
                    {page.data.data.map((order) => (
                      <tr key={order.id}>
                        <td>
                          <a href={href('orders', { location, ...searchParams(search), id: order.id })}>
                            {order.platformGeneratedPurchaseOrderNumber}
                          </a>
                        </td>
                        <td>{order.supplier.name}</td>
                        <td>
                          <span class={`status ${order.status}`}>{order.status}</span>
                          {order.archived ? <span class="muted"> archived</span> : null}
                        </td>
                        <td>{formatDate(order.createdDate)}</td>
                        <td>{formatTime(order.modifiedDate)}</td>
                        <td class="number">{order.items.length}</td>
                        <td class="number">{received(order)}</td>
                        <td class="number">{formatMoney(order.purchaseOrderTotals.totalCost)}</td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
              <nav class="pager">
                <button
                  type="button"
                  disabled={tokens.length === 0}
                  onClick={() => go({ filter, token: tokens.at(-1) ?? '', previous: tokens.slice(0, -1) })}
                >
                  ← Previous
                </button>
                <button
                  type="button"
                  disabled={page.data.nextPageToken === ''}
                  onClick={() =>
                    go({ filter, token: page.data?.nextPageToken ?? '', previous: [...tokens, token] })
                  }
                >
                  Next →
                </button>
              </nav>
            </>
          )}
        </>
      )}
    </Card>
  );
};
