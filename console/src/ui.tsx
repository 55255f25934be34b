import type { ComponentChildren } from 'preact';
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';

export interface Loaded<T> {
  data: T | undefined;
  error: string | undefined;
  loading: boolean;
  reload: () => void;
}

/** Runs `load` when `deps` change (and on reload); a late answer to an older call is dropped. */
export const useLoad = <T,>(load: () => Promise<T>, deps: readonly unknown[]): Loaded<T> => {
  const [state, setState] = useState<{ data?: T; error?: string; loading: boolean }>({ loading: true });
  const [tick, setTick] = useState(0);
  const latest = useRef(0);
  useEffect(() => {
    const call = ++latest.current;
    setState((previous) => ({ ...previous, loading: true }));
    load().then(
      (data) => {
        if (call === latest.current) setState({ data, loading: false });
      },
      (error: unknown) => {
        if (call === latest.current)
          setState({ error: String((error as Error).message ?? error), loading: false });
      },
    );
  }, [...deps, tick]);
  const reload = useCallback(() => setTick((n) => n + 1), []);
  return { data: state.data, error: state.error, loading: state.loading, reload };
};

export const Problem = ({ error }: { error: string | undefined }) =>
  error === undefined ? null : (
    <p class="problem" role="alert">
      {error}
    </p>
  );

export const Card = ({
  title,
  children,
  wide,
}: {
  title: string;
  children: ComponentChildren;
  wide?: boolean;
}) => (
  <section class={wide === true ? 'card wide' : 'card'} aria-label={title}>
    <h2>{title}</h2>
    {children}
  </section>
);

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

export const Json = ({ value }: { value: unknown }) => (
  <pre class="json">{JSON.stringify(value, null, 2)}</pre>
);
