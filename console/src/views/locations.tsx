import { useContext } from 'preact/hooks';
import { api } from '../api';
import { Card, ClockMoves, formatDate, href, Long, Problem, useLoad } from '../ui';

/** Every location with its record counts and the span of its records' modifiedDate. */
export const LocationsView = () => {
  const { data, error } = useLoad(() => api.locations(), [useContext(ClockMoves)]);
  return (
    <Card title="Locations" wide>
      <Problem error={error} />
      {data === undefined ? null : data.locations.length === 0 ? (
        <p class="empty">No locations yet: load data with larder import, larder seed or the fixtures API.</p>
      ) : (
        <div class="scroll">
          <table class="locations">
            <thead>
              <tr>
                <th>Location</th>
                <th>Purchase orders</th>
                <th>Orders modified</th>
                <th>Inventory entries</th>
                <th>Entries modified</th>
              </tr>
            </thead>
            <tbody>
              {data.locations.map((location) => {
                const orders = location.records['purchaseOrders'];
                const entries = location.records['inventoryHistory'];
                return (
                  <tr key={location.id}>
                    <td>
                      <strong>
                        <Long text={location.name} />
                      </strong>
                      <div class="muted">
                        <Long text={location.id} block />
                      </div>
                    </td>
                    <td class="number">
                      <a href={href('orders', { location: location.id })}>{orders?.count ?? 0}</a>
                    </td>
                    <td>
                      {formatDate(orders?.firstModifiedDate)} → {formatDate(orders?.lastModifiedDate)}
                    </td>
                    <td class="number">
                      <a href={href('inventory', { location: location.id })}>{entries?.count ?? 0}</a>
                    </td>
                    <td>
                      {formatDate(entries?.firstModifiedDate)} → {formatDate(entries?.lastModifiedDate)}
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      )}
    </Card>
  );
};
