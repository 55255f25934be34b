import { Fragment } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { api, type JournalEntry } from '../api';
import { Card, formatTime, href, Json, Long, Problem, useLoad, usePoll } from '../ui';

/** How often the journal is read again while live. */
const POLL_MS = 1500;
const SHOWN = 200;

/** Offered before any traffic; every status seen is added (a 400 the integration sent, a fault's 502). */
const STATUSES = ['2xx', '4xx', '5xx', '401', '403', '404', '429', '503'];

/** The classes first, then the statuses in order (a plain sort puts '200' before '2xx'). */
const byClassThenStatus = (a: string, b: string) =>
  Number(a.endsWith('xx')) === Number(b.endsWith('xx')) ? a.localeCompare(b) : a.endsWith('xx') ? -1 : 1;

const statusClass = (status: number) => (status >= 500 ? 's5' : status >= 400 ? 's4' : 's2');

/** What the journal shows for a claimed id that is no client's: never a client to report on. */
const NOT_A_CLIENT_ID = '(not a client id)';

/** The client with the most requests in view: the report's default, rather than whichever id sorts first. */
const busiestClient = (entries: readonly JournalEntry[]): string | undefined => {
  const counts = new Map<string, number>();
  for (const { clientId } of entries)
    if (clientId !== undefined && clientId !== NOT_A_CLIENT_ID)
      counts.set(clientId, (counts.get(clientId) ?? 0) + 1);
  let busiest: string | undefined;
  for (const [id, count] of counts) if (busiest === undefined || count > counts.get(busiest)!) busiest = id;
  return busiest;
};

/**
 * Judged again when `refresh` changes: the id of the newest entry in view. One that failed (Larder down, a proxy's
 * error page) is asked again as often as the journal is, or it would say so until the next request came in.
 */
const Report = ({ clientId, refresh }: { clientId: string; refresh: string }) => {
  const { data, error, reload } = useLoad(() => api.report(clientId), [clientId, refresh]);
  usePoll(reload, POLL_MS, error !== undefined);
  return (
    <Card title={`Integration report: ${clientId}`}>
      <Problem error={error} />
      {data === undefined ? null : (
        <>
          <p class="muted">{data.requestsJudged} request(s) judged.</p>
          {data.dropped > 0 ? (
            <p class="dropped" data-testid="journal-dropped">
              The journal dropped its {data.dropped} oldest entries since it was last cleared (it keeps the
              newest --journal-size per worker): earlier traffic was not judged.
            </p>
          ) : null}
          {data.findings.length === 0 ? (
            <p class="good">No findings: this client follows the guidance.</p>
          ) : (
            <ul class="findings">
              {data.findings.map((finding) => (
                <li key={finding.rule} class={finding.severity}>
                  <strong>
                    {finding.severity}: {finding.rule}
                  </strong>{' '}
                  ({finding.count}×)
                  <div>{finding.message}</div>
                </li>
              ))}
            </ul>
          )}
        </>
      )}
    </Card>
  );
};

/** One filter of the journal: a choice among `values` (and the value chosen, as a link may name one), or "any". */
const Filter = (props: {
  label: string;
  name: string;
  value: string;
  values: readonly string[];
  onChange: (value: string) => void;
}) => {
  const linked = props.value === '' || props.values.includes(props.value) ? [] : [props.value];
  return (
    <label>
      {props.label}
      <select name={props.name} value={props.value} onChange={(e) => props.onChange(e.currentTarget.value)}>
        {['', ...props.values, ...linked].map((value) => (
          <option key={value} value={value}>
            {value === '' ? 'any' : value}
          </option>
        ))}
      </select>
    </label>
  );
};

/**
 * The request journal, read again every POLL_MS while live, filterable by client, operation and status. The
 * filters are the route's, so Back from another view (or a link, a reload) shows the same filtered journal.
 */
export const TrafficView = ({ params }: { params: URLSearchParams }) => {
  const clientId = params.get('clientId') ?? '';
  const operation = params.get('operation') ?? '';
  const status = params.get('status') ?? '';
  const filter = (next: { clientId?: string; operation?: string; status?: string }) => {
    window.location.hash = href('traffic', { clientId, operation, status, ...next });
  };
  const [live, setLive] = useState(true);
  // By id: under --workers each worker counts its own seq, so two entries can share one.
  const [open, setOpen] = useState<string | undefined>(undefined);
  const [clients, setClients] = useState<string[]>([]);
  const [operations, setOperations] = useState<string[]>([]);
  const [statuses, setStatuses] = useState<string[]>(STATUSES);
  const journal = useLoad(
    () =>
      api.requests({
        limit: SHOWN,
        ...(clientId === '' ? {} : { clientId }),
        ...(operation === '' ? {} : { operation }),
        ...(status === '' ? {} : { status }),
      }),
    [clientId, operation, status],
  );
  usePoll(journal.reload, POLL_MS, live);
  const [cleared, setCleared] = useState(false);
  const [clearError, setClearError] = useState<string | undefined>();
  // The whole journal, whatever the filters show; the clients, operations and statuses seen go with it.
  const clear = async () => {
    setClearError(undefined);
    try {
      await api.clearJournal();
      setClients([]);
      setOperations([]);
      setStatuses(STATUSES);
      setCleared(true);
    } catch (failure) {
      setClearError((failure as Error).message);
    }
    journal.reload();
  };
  const entries: JournalEntry[] = journal.data?.requests.slice().reverse() ?? [];
  // Clients, operations and statuses seen so far stay selectable when a filter hides them.
  useEffect(() => {
    const seenClients = new Set(clients);
    const seenOperations = new Set(operations);
    const seenStatuses = new Set(statuses);
    for (const entry of entries) {
      if (entry.clientId !== undefined) seenClients.add(entry.clientId);
      if (entry.operation !== undefined) seenOperations.add(entry.operation);
      seenStatuses.add(String(entry.status));
    }
    if (seenClients.size !== clients.length) setClients([...seenClients].sort());
    if (seenOperations.size !== operations.length) setOperations([...seenOperations].sort());
    if (seenStatuses.size !== statuses.length) setStatuses([...seenStatuses].sort(byClassThenStatus));
  }, [journal.data]);
  const reported = clientId !== '' ? clientId : (busiestClient(entries) ?? clients[0]);
  return (
    <div class="split">
      <Card title="Request journal" wide>
        <form class="filters" onSubmit={(e) => e.preventDefault()}>
          {(
            [
              ['Client', 'clientId', clientId, clients],
              ['Operation', 'operation', operation, operations],
              ['Status', 'status', status, statuses],
            ] as const
          ).map(([label, name, value, values]) => (
            <Filter
              key={name}
              label={label}
              name={name}
              value={value}
              values={values}
              onChange={(next) => filter({ [name]: next })}
            />
          ))}
          <label>
            <input
              type="checkbox"
              name="live"
              checked={live}
              onChange={(e) => setLive(e.currentTarget.checked)}
            />{' '}
            live
          </label>
          <button type="button" name="clear-journal" onClick={() => void clear()}>
            Clear journal
          </button>
        </form>
        <Problem error={journal.error ?? clearError} />
        {cleared && entries.length === 0 ? (
          <p class="muted" role="status">
            The journal was cleared: the requests made from now on show here.
          </p>
        ) : null}
        {journal.data === undefined ? null : entries.length === 0 ? (
          <p class="empty">
            No requests yet
            {clientId !== '' || operation !== '' || status !== '' ? ' match these filters' : ''}.
          </p>
        ) : (
          <div class="scroll">
            <table class="journal">
              <thead>
                <tr>
                  <th>Time (virtual)</th>
                  <th>Request</th>
                  <th>Status</th>
                  <th>ms</th>
                  <th>Client</th>
                  <th>Location</th>
                </tr>
              </thead>
              <tbody>
                {entries.map((entry) => (
                  <Fragment key={entry.id}>
                    <tr
                      class={`entry${open === entry.id ? ' open' : ''}`}
                      onClick={() => setOpen(open === entry.id ? undefined : entry.id)}
                    >
                      <td>
                        {/* The row opens on a click anywhere; the keyboard and screen readers get a real button. */}
                        <button
                          type="button"
                          class="toggle"
                          aria-expanded={open === entry.id}
                          aria-label={`Details of ${entry.method} ${entry.operation ?? entry.path}, ${entry.status}, at ${formatTime(entry.time)}`}
                          onClick={(e) => {
                            e.stopPropagation();
                            setOpen(open === entry.id ? undefined : entry.id);
                          }}
                        >
                          {formatTime(entry.time)}
                        </button>
                      </td>
                      <td>
                        <span class="method">{entry.method}</span>{' '}
                        <Long text={entry.operation ?? entry.path} />
                        {entry.fault === undefined ? null : <span class="fault">fault {entry.fault}</span>}
                      </td>
                      <td>
                        <span class={`code ${statusClass(entry.status)}`}>{entry.status}</span>
                        {entry.code === undefined ? null : <span class="muted"> {entry.code}</span>}
                      </td>
                      <td class="number">{entry.durationMs.toFixed(1)}</td>
                      <td class="mono">
                        <Long text={entry.clientId ?? '–'} />
                      </td>
                      <td>
                        <Long text={entry.location ?? '–'} />
                      </td>
                    </tr>
                    {open === entry.id ? (
                      <tr class="entry-detail">
                        <td colSpan={6}>
                          <Json value={entry} />
                        </td>
                      </tr>
                    ) : null}
                  </Fragment>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </Card>
      {reported === undefined ? (
        <Card title="Integration report">
          <p class="empty">The report judges one client: it appears once a client has made requests.</p>
        </Card>
      ) : (
        <Report clientId={reported} refresh={journal.data?.requests.at(-1)?.id ?? ''} />
      )}
    </div>
  );
};
