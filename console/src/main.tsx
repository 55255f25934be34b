import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { ApiError, api, type ClockView, forgetToken, storeToken, takeToken, useToken } from './api';
import { formatTime, href, Problem, useLoad, useRoute } from './ui';
import { ControlsView } from './views/controls';
import { EntryView, InventoryView } from './views/inventory';
import { LocationsView } from './views/locations';
import { OrdersView } from './views/orders';
import { TrafficView } from './views/traffic';
import './style.css';

const CLOCK_POLL_MS = 10_000;

const VIEWS = [
  ['locations', 'Locations'],
  ['orders', 'Purchase orders'],
  ['inventory', 'Inventory'],
  ['traffic', 'Traffic'],
  ['controls', 'Controls'],
] as const;

/** Asks for the admin token when the console was opened without one (or with a wrong one). */
const TokenForm = ({
  onToken,
  problem,
}: {
  onToken: (token: string) => void;
  problem: string | undefined;
}) => {
  const [value, setValue] = useState('');
  return (
    <main class="gate">
      <h1>Larder console</h1>
      <p>
        Open the link <code>larder serve</code> prints (<code>/console#token=…</code>), or paste the admin
        token.
      </p>
      <Problem error={problem} />
      <form
        onSubmit={(e) => {
          e.preventDefault();
          if (value.trim() !== '') onToken(value.trim());
        }}
      >
        <input
          type="password"
          name="token"
          autocomplete="off"
          aria-label="Admin token"
          value={value}
          onInput={(e) => setValue(e.currentTarget.value)}
        />
        <button type="submit">Open</button>
      </form>
    </main>
  );
};

const Console = ({ onUnauthorized }: { onUnauthorized: () => void }) => {
  const route = useRoute();
  const locations = useLoad(() => api.locations(), []);
  const [clock, setClock] = useState<ClockView | undefined>();
  // The badge follows the virtual clock, which runs on unless frozen.
  useEffect(() => {
    const read = () =>
      api.clock().then(setClock, (error: unknown) => {
        if (error instanceof ApiError && error.status === 401) onUnauthorized();
      });
    void read();
    const timer = setInterval(read, CLOCK_POLL_MS);
    return () => clearInterval(timer);
  }, []);
  const ids = locations.data?.locations.map((l) => l.id) ?? [];
  const chosen = route.params.get('location') ?? '';
  const location = ids.includes(chosen) ? chosen : (ids[0] ?? '');
  const needsLocation = ['orders', 'inventory', 'entry'].includes(route.view);
  const id = route.params.get('id') ?? undefined;
  return (
    <>
      <header>
        <a class="brand" href={href('locations')}>
          Larder
        </a>
        <nav>
          {VIEWS.map(([view, label]) => (
            <a
              key={view}
              href={href(
                view,
                needsLocation || view === 'orders' || view === 'inventory' ? { location } : {},
              )}
              aria-current={
                route.view === view || (route.view === 'entry' && view === 'inventory') ? 'page' : undefined
              }
            >
              {label}
            </a>
          ))}
        </nav>
        <a class="clock-badge" href={href('controls')} title="The virtual clock">
          {clock === undefined ? '…' : formatTime(clock.now)}
          {clock?.frozen === true ? ' ❄' : ''}
        </a>
      </header>
      <main>
        <Problem error={locations.error} />
        {needsLocation && ids.length > 0 ? (
          <label class="location-picker">
            Location{' '}
            <select
              name="location"
              value={location}
              onChange={(e) => {
                window.location.hash = href(route.view === 'entry' ? 'inventory' : route.view, {
                  location: e.currentTarget.value,
                });
              }}
            >
              {locations.data?.locations.map((l) => (
                <option key={l.id} value={l.id}>
                  {l.name} ({l.id})
                </option>
              ))}
            </select>
          </label>
        ) : null}
        {needsLocation && locations.data !== undefined && ids.length === 0 ? (
          <p class="empty">No locations yet.</p>
        ) : null}
        {route.view === 'locations' ? <LocationsView /> : null}
        {route.view === 'orders' && location !== '' ? (
          <OrdersView key={location} location={location} id={id} />
        ) : null}
        {route.view === 'inventory' && location !== '' ? (
          <InventoryView key={location} location={location} />
        ) : null}
        {route.view === 'entry' && location !== '' && id !== undefined ? (
          <EntryView location={location} id={id} />
        ) : null}
        {route.view === 'traffic' ? <TrafficView /> : null}
        {route.view === 'controls' ? (
          <ControlsView
            onClock={(next) => {
              setClock(next);
              locations.reload();
            }}
          />
        ) : null}
      </main>
    </>
  );
};

const App = () => {
  const [token, setToken] = useState(takeToken);
  const [problem, setProblem] = useState<string | undefined>();
  if (token === undefined) {
    return (
      <TokenForm
        problem={problem}
        onToken={(value) => {
          storeToken(value);
          setProblem(undefined);
          setToken(value);
        }}
      />
    );
  }
  useToken(token);
  return (
    <Console
      onUnauthorized={() => {
        forgetToken();
        setProblem('That admin token was refused.');
        setToken(undefined);
      }}
    />
  );
};

render(<App />, document.getElementById('app')!);
