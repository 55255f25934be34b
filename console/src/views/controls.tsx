import { useContext, useLayoutEffect, useRef, useState } from 'preact/hooks';
import {
  FAULT_EFFECT_TYPES,
  FAULT_STATUSES,
  MAX_FAULT_LATENCY_MS,
  MAX_SLOW_BODY_BYTES_PER_SECOND,
  MIN_SLOW_BODY_BYTES_PER_SECOND,
} from '../../../src/sandbox/fault-vocabulary.js';
import { ApiError, api, type ClockView, type FaultRule } from '../api';
import { RESET_EFFECTS, resetFailure } from '../reset';
import { Card, ClockMoves, formatTime, Long, Problem, useLoad, usePoll } from '../ui';

const HOUR = 3600;
const DAY = 24 * HOUR;

const describeOffset = (seconds: number) => {
  if (seconds === 0) return 'real time';
  const sign = seconds > 0 ? '+' : '−';
  const abs = Math.abs(seconds);
  const days = Math.floor(abs / DAY);
  const hours = Math.floor((abs % DAY) / HOUR);
  const minutes = Math.floor((abs % HOUR) / 60);
  return `${sign}${days}d ${hours}h ${minutes}m from real time`;
};

/** The virtual clock: what it says, advance, jump (optionally frozen), back to real time. */
/** How often the clock card reads the clock again: it shows seconds, and a running clock moves each one. */
const CLOCK_POLL_MS = 1000;

const ClockCard = ({ onChange }: { onChange: (clock: ClockView) => void }) => {
  const clock = useLoad(() => api.clock(), [useContext(ClockMoves)]);
  usePoll(clock.reload, CLOCK_POLL_MS);
  const [error, setError] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);
  // As typed: a field emptied to type another number stays empty (and required), never silently 1.
  const [amount, setAmount] = useState('1');
  const [unit, setUnit] = useState(DAY);
  const [at, setAt] = useState('');
  const [frozen, setFrozen] = useState(false);
  const run = async (change: () => Promise<ClockView>) => {
    setBusy(true);
    setError(undefined);
    try {
      onChange(await change());
      clock.reload();
    } catch (failure) {
      setError((failure as Error).message);
    } finally {
      setBusy(false);
    }
  };
  const view = clock.data;
  return (
    <Card title="Clock">
      <Problem error={clock.error ?? error} />
      {view === undefined ? null : (
        <p class="clock-now">
          <strong class="now">{formatTime(view.now)}</strong> UTC
          <br />
          <span class="muted">
            {describeOffset(view.offsetSeconds)}
            {view.frozen ? ', frozen' : ''}
          </span>
        </p>
      )}
      <form
        class="filters"
        onSubmit={(e) => {
          e.preventDefault();
          void run(() => api.advanceClock(Number(amount) * unit));
        }}
      >
        <label>
          Advance by
          <input
            type="number"
            name="amount"
            required
            min={1}
            step={1}
            value={amount}
            onInput={(e) => setAmount(e.currentTarget.value)}
          />
        </label>
        <select
          name="unit"
          aria-label="unit"
          value={unit}
          onChange={(e) => setUnit(Number(e.currentTarget.value))}
        >
          <option value={60}>minutes</option>
          <option value={HOUR}>hours</option>
          <option value={DAY}>days</option>
        </select>
        <button type="submit" name="advance" disabled={busy}>
          Advance
        </button>
      </form>
      <form
        class="filters"
        onSubmit={(e) => {
          e.preventDefault();
          if (at === '') return;
          // The field takes years past 9999, which no ISO time (nor the clock) has: said here, naming the field,
          // rather than as the parser's "Invalid time value".
          const time = new Date(`${at}Z`);
          if (Number.isNaN(time.getTime())) {
            setError(`Jump to (UTC): ${at} is not a time the clock can take (years 0000 to 9999).`);
            return;
          }
          void run(() => api.setClock(time.toISOString(), frozen));
        }}
      >
        <label>
          Jump to (UTC)
          <input type="datetime-local" name="at" value={at} onInput={(e) => setAt(e.currentTarget.value)} />
        </label>
        <label>
          <input
            type="checkbox"
            name="frozen"
            checked={frozen}
            onChange={(e) => setFrozen(e.currentTarget.checked)}
          />{' '}
          frozen
        </label>
        <button type="submit" disabled={busy || at === ''}>
          Set
        </button>
        <button
          type="button"
          name="reset-clock"
          disabled={busy}
          onClick={() => void run(() => api.resetClock())}
        >
          Back to real time
        </button>
      </form>
      {busy ? <p class="muted">The live demo is catching up…</p> : null}
    </Card>
  );
};

type When = 'always' | 'next' | 'every' | 'probability';

/** A rule as the form states it: one effect, an optional match, and when it fires. */
const ruleFrom = (form: {
  effect: string;
  status: number;
  ms: number;
  bytesPerSecond: number;
  operation: string;
  clientId: string;
  location: string;
  when: When;
  n: number;
}): FaultRule => {
  const match = {
    ...(form.operation === '' ? {} : { operation: form.operation }),
    ...(form.clientId === '' ? {} : { clientId: form.clientId }),
    ...(form.location === '' ? {} : { location: form.location }),
  };
  const effect =
    form.effect === 'status'
      ? { type: 'status' as const, status: form.status as (typeof FAULT_STATUSES)[number] }
      : form.effect === 'latency'
        ? { type: 'latency' as const, ms: form.ms }
        : form.effect === 'slowBody'
          ? { type: 'slowBody' as const, bytesPerSecond: form.bytesPerSecond }
          : { type: form.effect as (typeof FAULT_EFFECT_TYPES)[number] };
  const when =
    form.when === 'always'
      ? undefined
      : form.when === 'probability'
        ? { probability: Math.min(1, Math.max(0, form.n)) }
        : { [form.when]: Math.max(1, Math.floor(form.n)) };
  return {
    ...(Object.keys(match).length === 0 ? {} : { match }),
    ...(when === undefined ? {} : { when }),
    effect,
  };
};

const describeRule = (rule: FaultRule) => {
  const pairs = (fields: object | undefined, join: string) =>
    Object.entries(fields ?? {})
      .map(([name, value]) => `${name}${join}${value}`)
      .join(' ');
  const { type, ...details } = rule.effect;
  const effect = [type, ...Object.values(details)].join(' ');
  const match = pairs(rule.match, '=');
  const when = pairs(rule.when, ' ');
  return `${effect} · ${match === '' ? 'every request' : match} · ${when === '' ? 'always' : when}`;
};

/** Fault rules: the list in force with counters, add or remove one (the others keep counting), clear all. */
/** How often the rules' counters are read again while Controls is open. */
const FAULTS_POLL_MS = 2000;

const FaultsCard = () => {
  const faults = useLoad(() => api.faults(), [useContext(ClockMoves)]);
  usePoll(faults.reload, FAULTS_POLL_MS);
  const [error, setError] = useState<string | undefined>();
  const [form, setForm] = useState({
    effect: 'status',
    status: 503,
    ms: 800,
    bytesPerSecond: 1000,
    operation: '',
    clientId: '',
    location: '',
    when: 'next' as When,
    // As typed: a field emptied to type another number stays empty (and required), never silently 0 or 1.
    n: '1',
  });
  const change = async (run: () => Promise<unknown>) => {
    setError(undefined);
    try {
      await run();
    } catch (failure) {
      setError((failure as Error).message);
    }
    faults.reload();
  };
  const rules = faults.data?.rules ?? [];
  return (
    <Card title="Fault rules">
      <Problem error={faults.error ?? error} />
      {faults.data === undefined ? null : rules.length === 0 ? (
        <p class="empty">No fault rules: every request is answered normally.</p>
      ) : (
        <ol class="rules">
          {rules.map((rule) => (
            <li key={rule.id} class="rule">
              <strong>{rule.id}</strong> {describeRule(rule)}
              <span class="muted">
                {' '}
                matched {rule.matched}, applied {rule.applied}
              </span>{' '}
              <button
                type="button"
                class="remove"
                name={`remove-${rule.id}`}
                // Named for its rule: a screen reader's list of buttons otherwise reads "Remove" once a rule.
                aria-label={`Remove ${rule.id}`}
                onClick={() => void change(() => api.removeFault(rule.id))}
              >
                Remove
              </button>
            </li>
          ))}
        </ol>
      )}
      <form
        class="filters fault-form"
        onSubmit={(e) => {
          e.preventDefault();
          // The field takes 0, which the server accepts too: a rule that never fires, said here, naming the field.
          if (form.when === 'probability' && Number(form.n) === 0) {
            setError('Probability: 0 never fires; give one above 0, up to 1.');
            return;
          }
          void change(() => api.addFault(ruleFrom({ ...form, n: Number(form.n) })));
        }}
      >
        <label>
          Effect
          <select
            name="effect"
            value={form.effect}
            onChange={(e) => setForm({ ...form, effect: e.currentTarget.value })}
          >
            {FAULT_EFFECT_TYPES.map((type) => (
              <option key={type} value={type}>
                {type}
              </option>
            ))}
          </select>
        </label>
        {form.effect === 'status' ? (
          <label>
            Status
            <select
              name="status"
              value={form.status}
              onChange={(e) => setForm({ ...form, status: Number(e.currentTarget.value) })}
            >
              {FAULT_STATUSES.map((status) => (
                <option key={status} value={status}>
                  {status}
                </option>
              ))}
            </select>
          </label>
        ) : null}
        {form.effect === 'latency' ? (
          <label>
            Delay (ms)
            <input
              type="number"
              name="ms"
              required
              min={0}
              max={MAX_FAULT_LATENCY_MS}
              value={Number.isNaN(form.ms) ? '' : form.ms}
              // Empty is NaN, not 0: the form asks for a number rather than add a rule nobody chose.
              onInput={(e) => setForm({ ...form, ms: e.currentTarget.valueAsNumber })}
            />
          </label>
        ) : null}
        {form.effect === 'slowBody' ? (
          <label>
            Rate (bytes/s)
            <input
              type="number"
              name="bytesPerSecond"
              required
              min={MIN_SLOW_BODY_BYTES_PER_SECOND}
              max={MAX_SLOW_BODY_BYTES_PER_SECOND}
              step={1}
              value={Number.isNaN(form.bytesPerSecond) ? '' : form.bytesPerSecond}
              onInput={(e) => setForm({ ...form, bytesPerSecond: e.currentTarget.valueAsNumber })}
            />
          </label>
        ) : null}
        <label>
          Operation
          <input
            name="operation"
            placeholder="any (searchPurchaseOrders…)"
            value={form.operation}
            onInput={(e) => setForm({ ...form, operation: e.currentTarget.value.trim() })}
          />
        </label>
        <label>
          Client
          <input
            name="clientId"
            placeholder="any"
            value={form.clientId}
            onInput={(e) => setForm({ ...form, clientId: e.currentTarget.value.trim() })}
          />
        </label>
        <label>
          Location
          <input
            name="location"
            placeholder="any"
            value={form.location}
            onInput={(e) => setForm({ ...form, location: e.currentTarget.value.trim() })}
          />
        </label>
        <label>
          When
          <select
            name="when"
            value={form.when}
            onChange={(e) => setForm({ ...form, when: e.currentTarget.value as When })}
          >
            <option value="always">every matching request</option>
            <option value="next">the next N</option>
            <option value="every">every Nth</option>
            <option value="probability">with probability</option>
          </select>
        </label>
        {form.when === 'always' ? null : (
          <label>
            {form.when === 'probability' ? 'Probability' : 'N'}
            <input
              type="number"
              name="n"
              required
              min={form.when === 'probability' ? 0 : 1}
              max={form.when === 'probability' ? 1 : undefined}
              step={form.when === 'probability' ? 0.05 : 1}
              value={form.n}
              onInput={(e) => setForm({ ...form, n: e.currentTarget.value })}
            />
          </label>
        )}
        <button type="submit" name="add-fault">
          Add rule
        </button>
        <button
          type="button"
          name="clear-faults"
          disabled={rules.length === 0}
          onClick={() => void change(() => api.clearFaults())}
        >
          Clear all
        </button>
      </form>
    </Card>
  );
};

/** How often the counts are read again while Controls is open: a client's traffic moves them all the time. */
const RATE_LIMITS_POLL_MS = 2000;

const windowName = (seconds: number) =>
  seconds % HOUR === 0 ? `${seconds / HOUR} h` : seconds % 60 === 0 ? `${seconds / 60} min` : `${seconds} s`;

/** The --rate-limit limits, what each client and location (then each address) has used, and a way to clear it. */
const RateLimitsCard = () => {
  const limits = useLoad(() => api.rateLimits(), [useContext(ClockMoves)]);
  usePoll(limits.reload, RATE_LIMITS_POLL_MS);
  const [error, setError] = useState<string | undefined>();
  const clear = async () => {
    setError(undefined);
    try {
      await api.clearRateLimits();
    } catch (failure) {
      setError((failure as Error).message);
    }
    limits.reload();
  };
  const state = limits.data;
  return (
    <Card title="Rate limits">
      <Problem error={limits.error ?? error} />
      {state === undefined ? null : state.limits.length === 0 ? (
        <p class="empty">
          No rate limits: Larder runs with <code>--rate-limit off</code>.
        </p>
      ) : (
        <>
          <p class="muted">
            {state.limits
              .map(
                ({ limit, windowSeconds }) =>
                  `${limit.toLocaleString('en-US')} per ${windowName(windowSeconds)}`,
              )
              .join(', ')}
            : what each client and location, and each address, has used of the windows now current.
          </p>
          {state.counted.length === 0 ? (
            <p class="empty">Nothing counted in the current windows.</p>
          ) : (
            <div class="scroll">
              <table class="rate-limits">
                <thead>
                  <tr>
                    <th scope="col">Counted for</th>
                    {state.limits.map(({ limit, windowSeconds }) => (
                      <th key={`${limit}/${windowSeconds}`} scope="col" class="number">
                        per {windowName(windowSeconds)}
                      </th>
                    ))}
                  </tr>
                </thead>
                <tbody>
                  {state.counted.map(({ clientId, location, sourceAddress, windows }) => (
                    <tr key={sourceAddress ?? `${clientId} ${location}`}>
                      <td>
                        {sourceAddress === undefined ? (
                          <>
                            client <Long text={clientId ?? ''} /> at <Long text={location ?? ''} />
                          </>
                        ) : (
                          <>address {sourceAddress} (logins and tokens)</>
                        )}
                      </td>
                      {windows.map((window) => (
                        <td key={window.windowSeconds} class="number">
                          {window.used.toLocaleString('en-US')} of {window.limit.toLocaleString('en-US')}
                          {window.remaining === 0 ? <strong class="full"> full</strong> : null}
                          <br />
                          <span class="muted">until {formatTime(window.resetsAt)}</span>
                        </td>
                      ))}
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )}
          {state.more > 0 ? <p class="muted">…and {state.more.toLocaleString('en-US')} more.</p> : null}
          <button
            type="button"
            name="clear-rate-limits"
            disabled={state.counted.length === 0}
            onClick={() => void clear()}
          >
            Clear counts
          </button>
        </>
      )}
    </Card>
  );
};

/**
 * Back to the demo's first start. Destructive, so the button only opens a confirmation in the page (not
 * window.confirm, which a screen reader user cannot review and some browsers suppress) that says what goes;
 * the focus moves to its Cancel, and Escape or Cancel close it, the focus back on the button.
 */
const SandboxCard = ({ onReset }: { onReset: (clock: ClockView) => void }) => {
  const [confirming, setConfirming] = useState(false);
  const [busy, setBusy] = useState(false);
  const [outcome, setOutcome] = useState<{ done: boolean; text: string } | undefined>();
  const opener = useRef<HTMLButtonElement>(null);
  const cancel = useRef<HTMLButtonElement>(null);
  // Once the confirmation is gone, the focus goes back to the button, after the render that enables it again.
  // Before the page is painted (a layout effect), so a key pressed meanwhile never goes to the old focus.
  const refocus = useRef(false);
  useLayoutEffect(() => {
    if (confirming) cancel.current?.focus();
    else if (refocus.current) opener.current?.focus();
    refocus.current = false;
  }, [confirming, busy]);
  const close = () => {
    refocus.current = true;
    setConfirming(false);
  };
  const reset = async () => {
    setBusy(true);
    try {
      const { clock } = await api.reset();
      setOutcome({
        done: true,
        text: 'Reset: the demo data as first generated, only the demo client, the clock at real time, an empty journal, no fault rules, no rate-limit counts.',
      });
      onReset(clock);
    } catch (failure) {
      const status = failure instanceof ApiError ? failure.status : 0;
      setOutcome({ done: false, text: resetFailure(status, (failure as Error).message) });
    } finally {
      setBusy(false);
      close();
    }
  };
  return (
    <Card title="Sandbox">
      <p class="muted">Back to the demo's first start, as if Larder had just made it.</p>
      <button
        ref={opener}
        type="button"
        name="reset-sandbox"
        aria-expanded={confirming}
        aria-controls="reset-confirm"
        disabled={busy}
        onClick={() => setConfirming(!confirming)}
      >
        Reset sandbox
      </button>
      {confirming ? (
        <fieldset
          id="reset-confirm"
          class="confirm"
          aria-describedby="reset-confirm-effects"
          onKeyDown={(e) => {
            if (e.key === 'Escape' && !busy) close();
          }}
        >
          <legend>Reset the sandbox?</legend>
          <p id="reset-confirm-effects">{RESET_EFFECTS}</p>
          <button
            type="button"
            class="danger"
            name="confirm-reset"
            disabled={busy}
            onClick={() => void reset()}
          >
            Reset now
          </button>{' '}
          <button ref={cancel} type="button" name="cancel-reset" disabled={busy} onClick={close}>
            Cancel
          </button>
          {busy ? (
            <p class="muted" role="status">
              Resetting: the demo data is being generated again…
            </p>
          ) : null}
        </fieldset>
      ) : null}
      {outcome === undefined ? null : outcome.done ? (
        <p class="good" role="status">
          {outcome.text}
        </p>
      ) : (
        <Problem error={outcome.text} />
      )}
    </Card>
  );
};

export const ControlsView = ({
  onClock,
  onReset,
}: {
  onClock: (clock: ClockView) => void;
  onReset: (clock: ClockView) => void;
}) => (
  <div class="split even">
    {/* Under the clock, not a row below both cards, where the tall rules card would leave a gap above it. */}
    <div class="stack">
      <ClockCard onChange={onClock} />
      <RateLimitsCard />
      <SandboxCard onReset={onReset} />
    </div>
    <FaultsCard />
  </div>
);
