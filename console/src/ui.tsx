import { type ComponentChildren, createContext } from 'preact';
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';

export interface Loaded<T> {
  data: T | undefined;
  error: string | undefined;
  loading: boolean;
  reload: () => void;
}

/**
 * Runs `load` when `deps` change (and on reload); a late answer to an older call is dropped. A reload that fails
 * keeps what the last one showed, beside the error (a server stopped for a moment does not blank the page);
 * new deps that fail show the error alone, never another query's data.
 */
export const useLoad = <T,>(load: () => Promise<T>, deps: readonly unknown[]): Loaded<T> => {
  const [state, setState] = useState<{ data?: T; error?: string; loading: boolean }>({ loading: true });
  const [tick, setTick] = useState(0);
  const latest = useRef(0);
  const shown = useRef<readonly unknown[] | undefined>(undefined);
  useEffect(() => {
    const call = ++latest.current;
    const same =
      shown.current !== undefined &&
      shown.current.length === deps.length &&
      shown.current.every((value, i) => Object.is(value, deps[i]));
    setState((previous) => ({ ...previous, loading: true }));
    load().then(
      (data) => {
        if (call !== latest.current) return;
        shown.current = deps;
        setState({ data, loading: false });
      },
      (error: unknown) => {
        if (call !== latest.current) return;
        const message = String((error as Error).message ?? error);
        setState((previous) => ({
          ...(same ? { data: previous.data } : {}),
          error: message,
          loading: false,
        }));
      },
    );
  }, [...deps, tick]);
  const reload = useCallback(() => setTick((n) => n + 1), []);
  return { data: state.data, error: state.error, loading: state.loading, reload };
};

/**
 * How many times the virtual clock was seen moved (set, advanced, frozen, reset), or the sandbox reset, since the
 * console opened: the views that show data read it again when this changes, as the live demo wrote the days the
 * clock passed, a chart's window ends at the virtual now, and a reset brought the first data back.
 */
export const ClockMoves = createContext(0);

/** Calls `reload` every `ms` while the page is visible. */
export const usePoll = (reload: () => void, ms: number, on = true) => {
  useEffect(() => {
    if (!on) return;
    const timer = setInterval(() => {
      if (document.visibilityState === 'visible') reload();
    }, ms);
    return () => clearInterval(timer);
  }, [on, ms]);
};

export const Problem = ({ error }: { error: string | undefined }) =>
  error === undefined ? null : (
    <p class="problem" role="alert">
      {error}
    </p>
  );

/**
 * `focus`: the card is what a link opened (an order, an entry), which replaces the link: its heading takes the
 * focus, so Tab goes on from it and a screen reader reads it, rather than both starting again at the top.
 */
export const Card = ({
  title,
  children,
  wide,
  focus,
}: {
  title: string;
  children: ComponentChildren;
  wide?: boolean;
  focus?: boolean;
}) => {
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    if (focus === true) heading.current?.focus();
  }, []);
  return (
    <section class={wide === true ? 'card wide' : 'card'} aria-label={title}>
      <h2 ref={heading} tabIndex={focus === true ? -1 : undefined}>
        {title}
      </h2>
      {children}
    </section>
  );
};

const money = new Intl.NumberFormat('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 });
export const formatMoney = (amount: number | null | undefined) =>
  amount == null ? '–' : money.format(amount);

/** Dates as UTC, like every date the API serves. */
export const formatDate = (iso: string | null | undefined) => (iso == null ? '–' : iso.slice(0, 10));
export const formatTime = (iso: string | null | undefined) =>
  iso == null ? '–' : `${iso.slice(0, 10)} ${iso.slice(11, 19)}`;

export const shortId = (id: string) => id.slice(0, 8);

/** The current hash route: `#/orders?location=x&id=y` → { view: 'orders', params }. */
export const readRoute = () => {
  const [path = '', search = ''] = location.hash.replace(/^#\/?/, '').split('?');
  return { view: path === '' ? 'locations' : path, params: new URLSearchParams(search) };
};

export const href = (view: string, params: Record<string, string | undefined> = {}) => {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(params))
    if (value !== undefined && value !== '') search.set(name, value);
  const text = search.toString();
  return `#/${view}${text === '' ? '' : `?${text}`}`;
};

export const useRoute = () => {
  const [route, setRoute] = useState(readRoute);
  useEffect(() => {
    const onChange = () => setRoute(readRoute());
    addEventListener('hashchange', onChange);
    return () => removeEventListener('hashchange', onChange);
  }, []);
  return route;
};

/** Longer than any id or operation name Larder makes: such a value may have no break in it. */
const LONG_VALUE = 48;

/**
 * A value an integration chose (a path, a location id): one too long to fit wraps anywhere rather than widen its
 * table past the screen (a 512-character path pushed the journal's other columns 8,000 px to the right). A shorter
 * one is left as it is, so at phone width a table still scrolls sideways rather than break words.
 */
export const Long = ({ text, block }: { text: string; block?: boolean }) =>
  text.length <= LONG_VALUE ? (
    <>{text}</>
  ) : (
    <span class={block === true ? 'long block' : 'long'}>{text}</span>
  );

export const Json = ({ value }: { value: unknown }) => (
  <pre class="json">{JSON.stringify(value, null, 2)}</pre>
);
