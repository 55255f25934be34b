import { render } from 'preact';
import { useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';
import { isAnswering, onAnswering } from './answering';
import { api, type ClockView, forgetToken, hasTokenLink, storeToken, takeToken, useToken } from './api';
import { badgeTime, clockMoved } from './clock';
import { applyTheme, readTheme, ThemePicker } from './theme';
import { ClockMoves, formatTime, href, Problem, useLoad, useRoute } from './ui';
import { ControlsView } from './views/controls';
import { EntryView, InventoryView } from './views/inventory';
import { LocationsView } from './views/locations';
import { OrdersView } from './views/orders';
import { TrafficView } from './views/traffic';
import './style.css';

const CLOCK_POLL_MS = 10_000;
/** While Larder does not answer: the badge shows the time again soon after it is back, on any view. */
const DOWN_POLL_MS = 2000;

/** A second, for the badge to run on between reads of a clock that is not frozen. */
const BADGE_TICK_MS = 1000;

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
  const input = useRef<HTMLInputElement>(null);
  // The form is the page's only task; a refused token brings it back, ready for the next try. Before the page is
  // painted (a layout effect), so the problem is never shown with the focus still elsewhere.
  useLayoutEffect(() => input.current?.focus(), [problem]);
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
          ref={input}
          type="password"
          name="token"
          autocomplete="off"
          aria-label="Admin token"
          value={value}
          onInput={(e) => setValue(e.currentTarget.value)}
        />
        <button type="submit">Open</button>
      </form>
      <ThemePicker />
    </main>
  );
};

const KNOWN_VIEWS = new Set<string>([...VIEWS.map(([view]) => view), 'entry']);

/**
 * The sticky header's height, kept in --header-height for the page's scroll-padding (style.css): the browser then
 * scrolls an element the keyboard focuses out from under the header. The header wraps to two or three rows on a
 * narrow screen, so it is measured, not guessed.
 */
const useHeaderHeight = () => {
  const header = useRef<HTMLElement>(null);
  useEffect(() => {
    const node = header.current;
    if (node === null) return;
    const root = document.documentElement;
    const observer = new ResizeObserver(() =>
      root.style.setProperty('--header-height', `${node.offsetHeight}px`),
    );
    observer.observe(node);
    return () => {
      observer.disconnect();
      root.style.removeProperty('--header-height');
    };
  }, []);
  return header;
};

const Console = () => {
  const route = useRoute();
  const header = useHeaderHeight();
  const chosen = route.params.get('location') ?? '';
  const [clock, setClock] = useState<{ view: ClockView; readAt: number; moves: number } | undefined>();
  const moves = clock?.moves ?? 0;
  // `reset`: the sandbox went back to its first start, which changes the data even when the clock did not move.
  const see = (view: ClockView, reset = false) =>
    setClock((previous) => ({
      view,
      readAt: Date.now(),
      moves:
        (previous?.moves ?? 0) +
        (reset || (previous !== undefined && clockMoved(previous.view, view)) ? 1 : 0),
    }));
  const [answering, setAnswering] = useState(isAnswering);
  useEffect(() => onAnswering(setAnswering), []);
  // Read again on every move: a test suite or another tab may load or remove locations meanwhile.
  const locations = useLoad(() => api.locations(), [route.view, chosen, moves]);
  const [, setSecond] = useState(0);
  // The badge follows the virtual clock: read every CLOCK_POLL_MS, run on locally in between unless frozen; and
  // at once when the tab comes back to the front, where the clock may have been moved meanwhile (a terminal, a
  // test suite), so the view shows the days passed without waiting for the next read. While Larder does not
  // answer (any call's failure says so), the badge claims no time and the clock is read more often; once it
  // answers again, the clock is read at once, as it may have been moved meanwhile.
  useEffect(() => {
    // A failure needs nothing more here: a refused token is handled by every call (api.ts), and a server that does
    // not answer is said by the view and the badge.
    const read = () =>
      api.clock().then(
        (view) => see(view),
        () => {},
      );
    const onVisible = () => {
      if (document.visibilityState === 'visible') void read();
    };
    void read();
    const timer = setInterval(read, answering ? CLOCK_POLL_MS : DOWN_POLL_MS);
    const second = setInterval(() => setSecond((n) => n + 1), BADGE_TICK_MS);
    addEventListener('focus', onVisible);
    document.addEventListener('visibilitychange', onVisible);
    return () => {
      clearInterval(timer);
      clearInterval(second);
      removeEventListener('focus', onVisible);
      document.removeEventListener('visibilitychange', onVisible);
    };
  }, [answering]);
  const badge = badgeTime(clock, Date.now(), answering);
  const ids = locations.data?.locations.map((l) => l.id) ?? [];
  // A link naming a location that is not there shows nothing of another one.
  const location = chosen === '' ? (ids[0] ?? '') : ids.includes(chosen) ? chosen : '';
  const needsLocation = ['orders', 'inventory', 'entry'].includes(route.view);
  const unknownLocation = needsLocation && locations.data !== undefined && chosen !== '' && location === '';
  const id = route.params.get('id') ?? undefined;
  return (
    // The views that show data read again when the clock was moved.
    <ClockMoves.Provider value={moves}>
      <header ref={header}>
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
        {answering ? (
          <a class="clock-badge" href={href('controls')} title="The virtual clock">
            {badge === undefined ? '…' : formatTime(badge)}
            {clock?.view.frozen === true ? ' ❄' : ''}
          </a>
        ) : (
          <a
            class="clock-badge down"
            href={href('controls')}
            title="The virtual clock is not known meanwhile"
          >
            Larder not answering
          </a>
        )}
        <ThemePicker />
      </header>
      <main>
        {/* Only where the picker needs the list: elsewhere a view's own read says the same thing once. */}
        {needsLocation ? <Problem error={locations.error} /> : null}
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
              {location === '' ? (
                <option value="" disabled>
                  Choose a location
                </option>
              ) : null}
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
        {unknownLocation ? (
          <Problem
            error={`No location ${JSON.stringify(chosen)}: it may have been removed. Choose one above.`}
          />
        ) : null}
        {KNOWN_VIEWS.has(route.view) ? null : (
          <p class="problem" role="alert">
            The console has no page {JSON.stringify(`#/${route.view}`)}.{' '}
            <a href={href('locations')}>Locations</a>
          </p>
        )}
        {route.view === 'entry' && id === undefined ? (
          <Problem error="This inventory entry link has no id (#/entry?location=…&id=…)." />
        ) : null}
        {route.view === 'locations' ? <LocationsView /> : null}
        {route.view === 'orders' && location !== '' ? (
          <OrdersView key={location} location={location} id={id} params={route.params} />
        ) : null}
        {route.view === 'inventory' && location !== '' ? (
          <InventoryView key={location} location={location} params={route.params} />
        ) : null}
        {route.view === 'entry' && location !== '' && id !== undefined ? (
          <EntryView location={location} id={id} />
        ) : null}
        {route.view === 'traffic' ? <TrafficView params={route.params} /> : null}
        {route.view === 'controls' ? (
          <ControlsView onClock={see} onReset={(view) => see(view, true)} />
        ) : null}
      </main>
    </ClockMoves.Provider>
  );
};

const App = () => {
  const [token, setToken] = useState(takeToken);
  const [problem, setProblem] = useState<string | undefined>();
  // A console link opened in this tab when it already shows the console: its token replaces the one held.
  useEffect(() => {
    const onChange = () => {
      if (!hasTokenLink()) return;
      setProblem(undefined);
      setToken(takeToken());
    };
    addEventListener('hashchange', onChange);
    return () => removeEventListener('hashchange', onChange);
  }, []);
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
  useToken(token, () => {
    forgetToken();
    setProblem('That admin token was refused.');
    setToken(undefined);
  });
  return <Console key={token} />;
};

// Served by Larder, the page's inline script (src/sandbox/console-assets.ts) has set it before the first paint;
// Vite's dev server serves console/index.html without it.
applyTheme(readTheme());
render(<App />, document.getElementById('app')!);
