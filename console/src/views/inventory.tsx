import { useContext } from 'preact/hooks';
import { ADJUSTMENT_TYPES } from '../../../src/records/enums.js';
import { api } from '../api';
import { type Series, StackedBars, StepChart } from '../charts';
import { Card, ClockMoves, formatMoney, formatTime, href, Json, Problem, shortId, useLoad } from '../ui';

/** The chart windows offered, in days ending at the virtual now. */
const WINDOWS = [30, 90, 180, 365];

/** Suppliers beyond these are summed into one "Other" series, so the bars stay readable. */
const TOP_SUPPLIERS = 7;

/** Per item, quantity on hand over time with each adjustment marked by type; spend per supplier per week. */
export const InventoryView = ({ location, params }: { location: string; params: URLSearchParams }) => {
  // The window and the item are in the route, so Back from an entry comes back to the same chart.
  const days = WINDOWS.find((n) => String(n) === params.get('days')) ?? 90;
  const item = params.get('item') ?? undefined;
  const show = (next: { days: number; item: string | undefined }) => {
    window.location.hash = href('inventory', { location, days: String(next.days), item: next.item });
  };
  const moves = useContext(ClockMoves);
  const { data, error, loading } = useLoad(
    () => api.charts(location, days, item),
    [location, days, item, moves],
  );
  const suppliers = data?.spend.suppliers ?? [];
  const series: Series[] = suppliers.slice(0, TOP_SUPPLIERS).map((s) => ({ name: s.name, values: s.weekly }));
  const rest = suppliers.slice(TOP_SUPPLIERS);
  if (rest.length > 0)
    series.push({
      name: `Other (${rest.length})`,
      values: (data?.spend.weeks ?? []).map((_, i) => rest.reduce((sum, s) => sum + (s.weekly[i] ?? 0), 0)),
    });
  const stock = data?.stock;
  return (
    <>
      <Card title="Inventory history" wide>
        <form class="filters" onSubmit={(e) => e.preventDefault()}>
          <label>
            Window
            <select
              name="days"
              value={days}
              onChange={(e) => show({ days: Number(e.currentTarget.value), item })}
            >
              {WINDOWS.map((n) => (
                <option key={n} value={n}>
                  last {n} days
                </option>
              ))}
            </select>
          </label>
          {data?.items.length === 0 ? null : (
            <label>
              Item
              <select
                name="item"
                value={stock?.itemVersionId ?? ''}
                onChange={(e) => show({ days, item: e.currentTarget.value })}
              >
                {(data?.items ?? []).map((i) => (
                  <option key={i.itemVersionId} value={i.itemVersionId}>
                    {i.name ?? shortId(i.itemVersionId)} ({i.entries})
                  </option>
                ))}
              </select>
            </label>
          )}
          {loading ? <span class="muted">loading…</span> : null}
        </form>
        <Problem error={error} />
        {data?.truncated === true ? (
          <p class="muted">This window holds more records than one chart reads; the oldest are shown.</p>
        ) : null}
        {stock == null ? (
          data === undefined ? null : (
            <p class="empty">No inventory entries in this window.</p>
          )
        ) : (
          <>
            <h3>Quantity on hand: {stock.name ?? stock.itemVersionId}</h3>
            <StepChart
              kinds={ADJUSTMENT_TYPES}
              title={`Quantity on hand of ${stock.name ?? stock.itemVersionId}`}
              points={stock.points.map((p) => ({
                at: Date.parse(p.at),
                value: p.quantityOnHand,
                kind: p.adjustmentType,
                label: `${formatTime(p.at)} ${p.adjustmentType}: ${p.quantityOnHand} on hand`,
              }))}
            />
            <details>
              <summary>Entries ({stock.points.length})</summary>
              <ul class="entries">
                {stock.points
                  .slice()
                  .reverse()
                  .map((p) => (
                    <li key={p.inventoryHistoryLogId}>
                      <a href={href('entry', { location, id: p.inventoryHistoryLogId })}>
                        {formatTime(p.at)}
                      </a>{' '}
                      {p.adjustmentType} → {p.quantityOnHand}
                    </li>
                  ))}
              </ul>
            </details>
          </>
        )}
      </Card>
      <Card title="Purchasing spend per supplier per week" wide>
        {data === undefined ? null : (
          <>
            <StackedBars title="Spend per supplier per week" columns={data.spend.weeks} series={series} />
            <p class="muted">
              totalCost of orders created in the window (drafts and voided orders left out):{' '}
              {formatMoney(suppliers.reduce((sum, s) => sum + s.total, 0))}
            </p>
          </>
        )}
      </Card>
    </>
  );
};

/** One inventory history entry, as the API serves it; RECEIVE entries link back to their purchase order. */
export const EntryView = ({ location, id }: { location: string; id: string }) => {
  const { data, error } = useLoad(() => api.entry(location, id), [location, id, useContext(ClockMoves)]);
  return (
    <Card
      title={
        data === undefined
          ? 'Inventory entry'
          : `${data.adjustmentType} entry ${shortId(data.inventoryHistoryLogId)}`
      }
      wide
      focus
    >
      <Problem error={error} />
      {data === undefined ? null : (
        <>
          <dl class="facts">
            <dt>Created</dt>
            <dd>{formatTime(data.createdDate)}</dd>
            <dt>Quantity on hand</dt>
            <dd>{data.quantityInfo.quantityOnHand}</dd>
            {data.purchaseOrderId == null ? null : (
              <>
                <dt>Purchase order</dt>
                <dd>
                  <a href={href('orders', { location, id: data.purchaseOrderId })}>
                    {shortId(data.purchaseOrderId)}
                  </a>
                </dd>
              </>
            )}
          </dl>
          <Json value={data} />
        </>
      )}
    </Card>
  );
};
