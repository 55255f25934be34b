import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  type ClientOptions,
  createClient,
  createSandbox,
  type LarderClient,
  LarderClientError,
  type PurchaseOrdersSearchRequest,
  type RecordsApi,
  type SandboxOptions,
  type Watermark,
} from '../src/index.js';
import { createSyncState } from '../src/sync.js';

/**
 * A caller's mistake is a TypeError at once, never a call retried as a network failure; an answer that is not
 * what the interface says is a LarderClientError, never a TypeError from inside the client. Scripted fetch: no
 * server, and nothing waits (the sleep returns at once).
 */

const LOGIN = { token: { accessToken: 'token-1', expiresIn: 3600 } };

/** A client whose fetch answers each request with the next of `answers` (JSON bodies, 200), counting calls. */
const scripted = (...answers: unknown[]) => {
  const sent: string[] = [];
  const client = createClient({
    baseUrl: 'http://larder.test',
    clientId: 'id',
    clientSecret: 'secret',
    sleep: async () => {},
    fetch: (async (input: string | URL | Request) => {
      sent.push(String(input));
      return Response.json(answers.shift() ?? {});
    }) as typeof fetch,
  });
  return { client, sent };
};

test('options that cannot work are refused when the client is made', () => {
  const base = { clientId: 'id', clientSecret: 'secret' };
  for (const [options, named] of [
    [{ baseUrl: '127.0.0.1:8080' }, /baseUrl must be an absolute http\(s\) URL/],
    // An environment variable not set: a TypeError naming the option, not one from inside the client.
    [{ baseUrl: undefined }, /^baseUrl must be an absolute http\(s\) URL .*, not undefined$/],
    [{ baseUrl: 'ftp://larder.test' }, /baseUrl/],
    [{ baseUrl: 'http://larder.test', authBaseUrl: 'larder.test' }, /authBaseUrl/],
    [{ baseUrl: 'http://ops:hunter2@larder.test' }, /^baseUrl must not hold credentials/],
    [{ baseUrl: 'ftp://ops:hunter2@larder.test' }, /^baseUrl must be .*, not ftp:\/\/\*\*\*@larder\.test$/],
    [
      { baseUrl: 'http://larder.test', timeoutMs: Number.POSITIVE_INFINITY },
      /timeoutMs must be a whole number/,
    ],
    [{ baseUrl: 'http://larder.test', timeoutMs: 0 }, /timeoutMs/],
    [{ baseUrl: 'http://larder.test', timeoutMs: 2 ** 40 }, /timeoutMs/],
    [{ baseUrl: 'http://larder.test', retry: { maxAttempts: 0 } }, /retry\.maxAttempts/],
    // No time at all: no call could ever be sent.
    [{ baseUrl: 'http://larder.test', retry: { maxElapsedMs: 0 } }, /retry\.maxElapsedMs/],
    [{ baseUrl: 'http://larder.test', retry: { baseDelayMs: -1 } }, /retry\.baseDelayMs/],
    // An environment variable not set: said when the client is made, not by the server at the first call.
    [{ baseUrl: 'http://larder.test', clientId: undefined }, /^clientId must be a non-empty string$/],
    [{ baseUrl: 'http://larder.test', clientSecret: undefined }, /^clientSecret must be a non-empty string$/],
    [{ baseUrl: 'http://larder.test', clientSecret: '' }, /^clientSecret must be a non-empty string$/],
    // A timeout given where a way of timing is asked for: said now, not as a TypeError from inside a call.
    [
      { baseUrl: 'http://larder.test', timeoutSignal: 30_000 },
      /^timeoutSignal must be a function, not number$/,
    ],
    [{ baseUrl: 'http://larder.test', sleep: 1000 }, /^sleep must be a function/],
    [{ baseUrl: 'http://larder.test', now: Date.now() }, /^now must be a function/],
    [{ baseUrl: 'http://larder.test', fetch: 'http://proxy.test' }, /^fetch must be a function/],
  ] as const)
    assert.throws(
      () => createClient({ ...base, ...options } as ClientOptions),
      (error: unknown) => {
        assert.ok(error instanceof TypeError);
        assert.match(error.message, named);
        return true;
      },
    );
  assert.doesNotThrow(() =>
    createClient({ ...base, baseUrl: 'https://larder.test/', retry: false, timeoutMs: 1 }),
  );
});

test('a sandbox whose options cannot work is refused when it is made, as a client is', () => {
  for (const [options, named] of [
    [
      { baseUrl: undefined, adminToken: 'admin-token-0123456789' },
      /^baseUrl must be an absolute http\(s\) URL/,
    ],
    [{ baseUrl: 'larder.test', adminToken: 'admin-token-0123456789' }, /^baseUrl must be an absolute/],
    [
      { baseUrl: 'http://ops:hunter2@larder.test', adminToken: 'admin-token-0123456789' },
      /^baseUrl must not hold/,
    ],
    // LARDER_ADMIN_TOKEN not set: said now, not as a 401 from the server at the first call.
    [{ baseUrl: 'http://larder.test', adminToken: undefined }, /^adminToken must be a non-empty string$/],
    [{ baseUrl: 'http://larder.test', adminToken: '' }, /^adminToken must be a non-empty string$/],
    // As createClient's: a timeout a timer cannot keep, or one that leaves no time, would fail every call later
    // (a RangeError from inside, or a call never sent); text would leave a call waiting for ever.
    ...[0, -5, 1.5, Number.POSITIVE_INFINITY, 2 ** 40, '100'].map(
      (timeoutMs) =>
        [
          { baseUrl: 'http://larder.test', adminToken: 'x', timeoutMs },
          /^timeoutMs must be a whole number from 1 to 2147483647, not /,
        ] as const,
    ),
    [
      { baseUrl: 'http://larder.test', adminToken: 'x', fetch: 'x' },
      /^fetch must be a function, not string$/,
    ],
    [{ baseUrl: 'http://larder.test', adminToken: 'x', sleep: 1 }, /^sleep must be a function, not number$/],
    [
      { baseUrl: 'http://larder.test', adminToken: 'x', timeoutSignal: 30_000 },
      /^timeoutSignal must be a function, not number$/,
    ],
  ] as const)
    assert.throws(
      () => createSandbox(options as unknown as SandboxOptions),
      (error: unknown) => {
        assert.ok(error instanceof TypeError);
        assert.match(error.message, named);
        return true;
      },
    );
  assert.doesNotThrow(() => createSandbox({ baseUrl: 'http://larder.test/', adminToken: 'x' }));
});

/** A client whose fetch records each request (URL as fetch reads it, and headers) and answers it with the next of `answers`. */
const recorded = (...answers: unknown[]) => {
  const sent: { url: URL; headers: Headers }[] = [];
  const client = createClient({
    baseUrl: 'http://larder.test',
    clientId: 'id',
    clientSecret: 'secret',
    sleep: async () => {},
    fetch: (async (input: string | URL | Request, init?: RequestInit) => {
      // As fetch reads them: the URL parsed (dot segments resolved), the header values normalized.
      sent.push({ url: new URL(String(input)), headers: new Headers(init?.headers) });
      return Response.json(answers.shift() ?? {});
    }) as typeof fetch,
  });
  return { client, sent };
};

const EMPTY_PAGE = { data: [], currentPageToken: '', nextPageToken: '' };

/** Every call of the client that takes a location, each run to its end. */
const everyCall = (client: LarderClient, location: string): [string, () => Promise<unknown>][] =>
  (['purchaseOrders', 'inventoryHistory'] as const).flatMap((kind) => {
    const api: RecordsApi<unknown, object> = client[kind];
    return [
      [`${kind}.get`, () => api.get('x', { location })],
      [
        `${kind}.search`,
        async () => {
          for await (const _ of api.search({}, { location })) void _;
        },
      ],
      [
        `${kind}.search().pages()`,
        async () => {
          for await (const _ of api.search({}, { location }).pages()) void _;
        },
      ],
      [
        `${kind}.sync`,
        async () => {
          for await (const _ of api.sync({ location })) void _;
        },
      ],
    ] as [string, () => Promise<unknown>][];
  });

test('a location a header cannot carry as it is, or an empty one, is a TypeError naming location, for every call, before anything is sent', async () => {
  // fetch strips leading and trailing whitespace (Café\n would be answered as Café) and refuses line breaks, NUL
  // and characters beyond U+00FF; not a string at all would be sent as "undefined"; an empty one (an environment
  // variable set to nothing) would be sent to be refused with a 400 naming the header.
  for (const location of [
    '',
    ' ',
    'Café\n',
    ' loc',
    'loc ',
    '\tloc',
    'loc\r\n',
    'a\nb',
    'a\rb',
    'a\0b',
    'loc-€',
    undefined,
    null,
    42,
  ])
    for (let call = 0; call < 8; call++) {
      const { client, sent } = recorded(LOGIN);
      const [name, run] = everyCall(client, location as string)[call] ?? [];
      await assert.rejects(run?.() ?? Promise.resolve(), (error: unknown) => {
        assert.ok(error instanceof TypeError, `${name} ${JSON.stringify(location)}: ${String(error)}`);
        assert.match(error.message, /^location must be a non-empty string a header carries as it is: /, name);
        assert.ok(error.message.endsWith(`not ${JSON.stringify(location)}`), error.message);
        return true;
      });
      assert.deepEqual(sent, [], `${name} ${JSON.stringify(location)}`);
    }
  // Inner spaces, Latin-1: carried as they are.
  for (const location of ['Café', 'a b', 'loc-linden-table']) {
    const { client, sent } = recorded(LOGIN, ...Array.from({ length: 8 }, () => EMPTY_PAGE));
    for (const [, run] of everyCall(client, location)) await run();
    assert.equal(sent.length, 9);
    for (const { url, headers } of sent.slice(1))
      assert.equal(headers.get('platform-restaurant-external-id'), location, url.pathname);
  }
});

test('a record id never changes the path it is sent to; one a path cannot carry is a TypeError naming id', async () => {
  for (const kind of ['purchaseOrders', 'inventoryHistory'] as const) {
    for (const id of ['a/b', '../x', 'a?b#c', '%2e%2e', '%2F', ' x ', 'Café', '..a', 'a\nb']) {
      const { client, sent } = recorded(LOGIN);
      await client[kind].get(id, { location: 'loc' });
      const url = sent[1]?.url;
      assert.equal(url?.pathname, `/v1/${kind}/${encodeURIComponent(id)}`, id);
      assert.equal(url?.search, '', id);
      assert.equal(decodeURIComponent(url?.pathname.split('/').at(-1) ?? ''), id);
    }
    // A URL resolves . and .. (and %2e, %2E: the same to it), so no path can carry them; empty names the list.
    for (const id of ['.', '..', '', undefined]) {
      const { client, sent } = recorded(LOGIN);
      await assert.rejects(client[kind].get(id as string, { location: 'loc' }), (error: unknown) => {
        assert.ok(error instanceof TypeError, `${JSON.stringify(id)}: ${String(error)}`);
        assert.match(error.message, /^id must be /);
        return true;
      });
      assert.deepEqual(sent, [], JSON.stringify(id));
    }
  }
});

test('a sandbox path segment a URL cannot carry, or an adminToken a header cannot, is a TypeError naming it, nothing sent', async () => {
  const sent: URL[] = [];
  const sandbox = createSandbox({
    baseUrl: 'http://larder.test',
    adminToken: 'admin-token-0123456789',
    fetch: (async (input: string | URL | Request) => {
      sent.push(new URL(String(input)));
      return Response.json({});
    }) as typeof fetch,
  });
  for (const bad of ['.', '..', '', undefined] as unknown as string[]) {
    for (const [name, run] of [
      ['location', () => sandbox.locations.loadPurchaseOrders(bad, [])],
      ['location', () => sandbox.locations.loadInventoryHistory(bad, [])],
      ['location', () => sandbox.locations.remove(bad)],
      ['id', () => sandbox.faults.remove(bad)],
    ] as const)
      await assert.rejects(run(), (error: unknown) => {
        assert.ok(error instanceof TypeError, `${JSON.stringify(bad)}: ${String(error)}`);
        assert.match(error.message, new RegExp(`^${name} must be `));
        return true;
      });
  }
  // An empty field in the journal's filter would filter nothing: every entry, not none.
  for (const field of ['location', 'clientId', 'operation'] as const)
    for (const run of [
      () => sandbox.requests.list({ [field]: '' }),
      () => sandbox.requests.read({ [field]: '' }),
      async () => sandbox.requests.follow({ [field]: '' }),
    ])
      await assert.rejects(run(), (error: unknown) => {
        assert.ok(error instanceof TypeError, String(error));
        assert.match(error.message, new RegExp(`^${field} must be `));
        return true;
      });
  assert.equal(sent.length, 0);
  for (const id of ['a/b', '../x', '%2e%2e']) {
    await sandbox.locations.remove(id);
    await sandbox.faults.remove(id);
  }
  assert.deepEqual(
    sent.map((url) => url.pathname),
    ['a/b', '../x', '%2e%2e'].flatMap((id) => [
      `/_larder/locations/${encodeURIComponent(id)}`,
      `/_larder/faults/${encodeURIComponent(id)}`,
    ]),
  );
  // A token read from a file keeps its line break: fetch would strip it (or refuse it), never the server's word.
  for (const adminToken of ['admin-token-0123456789\n', ' admin-token-0123456789', 'admin\ntoken-0123456789'])
    assert.throws(
      () => createSandbox({ baseUrl: 'http://larder.test', adminToken }),
      (error: unknown) => {
        assert.ok(error instanceof TypeError);
        assert.match(error.message, /^adminToken must be a string a header carries as it is: /);
        assert.ok(!error.message.includes('admin-token'), 'never echoed');
        return true;
      },
    );
});

test('a page size the server would refuse is a TypeError naming pageSize, before anything is sent', async () => {
  for (const pageSize of [0, -1, 501, 1.5, Number.NaN, Number.POSITIVE_INFINITY]) {
    const { client, sent } = scripted(LOGIN);
    const named = (error: unknown) => {
      assert.ok(error instanceof TypeError, String(error));
      assert.equal(error.message, `pageSize must be a whole number from 1 to 500, not ${pageSize}`);
      return true;
    };
    assert.throws(() => client.purchaseOrders.search({}, { location: 'loc', pageSize }), named);
    await assert.rejects(
      (async () => {
        for await (const _ of client.inventoryHistory.sync({ location: 'loc', pageSize })) void _;
      })(),
      named,
    );
    assert.deepEqual(sent, []);
  }
  for (const pageSize of [1, 500]) {
    const { client, sent } = scripted(LOGIN, { data: [], currentPageToken: '', nextPageToken: '' });
    for await (const _ of client.purchaseOrders.search({}, { location: 'loc', pageSize })) void _;
    assert.match(sent[1] ?? '', new RegExp(`pageSize=${pageSize}$`));
  }
});

test("a sync's filter with its own updatedDateRange is a TypeError when iterated, never a range that outlives since", async () => {
  // The type leaves it out, but a filter typed as a search's (or from JavaScript) can carry one: with no since, it
  // would walk only that range (an endDate too), and the watermark would then claim the rest was seen.
  const filter = {
    adjustmentType: ['WASTED'],
    updatedDateRange: { startDate: '2025-01-01', endDate: '2025-01-31' },
  } as { adjustmentType: ['WASTED'] };
  for (const since of [undefined, '2025-06-01']) {
    const { client, sent } = scripted(LOGIN);
    const run = client.inventoryHistory.sync({ location: 'loc', since, filter });
    await assert.rejects(
      (async () => {
        for await (const _ of run) void _;
      })(),
      (error: unknown) => {
        assert.ok(error instanceof TypeError, String(error));
        assert.equal(
          error.message,
          'filter.updatedDateRange must be absent: a sync sets it itself, from since (a watermark, a day or an instant)',
        );
        return true;
      },
    );
    assert.deepEqual(sent, []);
  }
  // Null (which its type allows) or undefined: none given, as with every option.
  for (const updatedDateRange of [null, undefined]) {
    const { client, sent } = scripted(LOGIN, { data: [], currentPageToken: '', nextPageToken: '' });
    const none: PurchaseOrdersSearchRequest = { includeArchived: false };
    Object.assign(none, { updatedDateRange });
    for await (const _ of client.purchaseOrders.sync({ location: 'loc', filter: none })) void _;
    assert.equal(sent.length, 2);
  }
});

test('a login answered 200 without a token is a LarderClientError', async () => {
  for (const body of [
    { ok: true },
    null,
    { token: { accessToken: 'a' } },
    { token: { accessToken: 'a', expiresIn: 0 } },
  ]) {
    const { client } = scripted(body);
    await assert.rejects(client.purchaseOrders.get('x', { location: 'loc' }), (error: unknown) => {
      assert.ok(error instanceof LarderClientError, String(error));
      assert.match(error.message, /The login answered 200 without a token/);
      return true;
    });
  }
});

test('a search answered with something that is not a page ends the walk with a LarderClientError', async () => {
  for (const page of [{ data: [], currentPageToken: '', nextPageToken: null }, { nextPageToken: '' }, null]) {
    const { client, sent } = scripted(LOGIN, page);
    await assert.rejects(
      (async () => {
        for await (const _ of client.purchaseOrders.search({}, { location: 'loc' })) void _;
      })(),
      (error: unknown) => {
        assert.ok(error instanceof LarderClientError, String(error));
        assert.match(error.message, /answered something that is not a page/);
        return true;
      },
    );
    assert.equal(sent.length, 2, 'the login and one page: no request for page "null"');
  }
});

test('a server whose page tokens loop ends the walk with a LarderClientError, after a few pages of the loop', async () => {
  const page = (next: string) => ({ data: [{ id: next }], currentPageToken: '', nextPageToken: next });
  for (const [tokens, loopStart] of [
    [['A'], 0],
    [['A', 'B'], 0],
    [['A', 'B', 'C', 'D', 'E'], 2],
    [['A', 'B', 'C', 'D', 'E', 'F', 'G'], 6],
  ] as const) {
    // The walk's pages, then the loop's tokens again and again: far more than the check may take to see it.
    const loop = tokens.slice(loopStart);
    const answers = [...tokens, ...Array.from({ length: 64 }, (_, i) => loop[i % loop.length] ?? '')].map(
      page,
    );
    const { client, sent } = scripted(LOGIN, ...answers);
    await assert.rejects(
      (async () => {
        for await (const _ of client.purchaseOrders.search({}, { location: 'loc', pageToken: 'START' }))
          void _;
      })(),
      (error: unknown) => {
        assert.ok(error instanceof LarderClientError, String(error));
        assert.match(error.message, /repeated page token [A-G]: the walk would not end/);
        return true;
      },
    );
    assert.ok(
      sent.length - 1 <= tokens.length + 3 * loop.length,
      `${tokens.join('')}: ${sent.length - 1} pages`,
    );
  }
  // A long walk with no loop is never taken for one.
  const walk = Array.from({ length: 300 }, (_, i) => page(i === 299 ? '' : `T${i}`));
  const { client } = scripted(LOGIN, ...walk);
  let records = 0;
  for await (const record of client.purchaseOrders.search({}, { location: 'loc' }))
    records += record === undefined ? 0 : 1;
  assert.equal(records, 300);
});

test('a call sent again after a new login keeps its one maxElapsedMs; with none left it is not sent again', async () => {
  /**
   * A client on a fake clock (fractions of a millisecond too, as performance.now gives) whose first GET takes
   * `takes` ms and the others 0.25 ms, answering with the next of `statuses`, then 503s.
   */
  const timed = (takes: number, statuses: number[]) => {
    let t = 0;
    const sent: string[] = [];
    const client = createClient({
      baseUrl: 'http://larder.test',
      clientId: 'id',
      clientSecret: 'secret',
      retry: { maxElapsedMs: 10_000 },
      now: () => t,
      sleep: async (ms) => {
        t += ms;
      },
      fetch: (async (input: string | URL | Request) => {
        const url = String(input);
        sent.push(`${t} ${url.includes('/login') ? 'login' : 'get'}`);
        if (url.includes('/login')) return Response.json(LOGIN);
        t += sent.length <= 2 ? takes : 0.25;
        const status = statuses.shift() ?? 503;
        return Response.json(
          { code: status * 100 + 1, message: 'no', requestId: 'r', canRetry: String(status !== 401) },
          {
            status,
            headers: status === 401 ? { 'www-authenticate': 'Bearer error="invalid_token"' } : {},
          },
        );
      }) as typeof fetch,
    });
    return { client, sent, elapsed: () => t };
  };
  // 6 s to a 401, a new login, then 503s: the retries stop within the call's 10 s, not 10 s after the login.
  const slow = timed(6_000, [401]);
  await assert.rejects(slow.client.purchaseOrders.get('x', { location: 'loc' }), { status: 503 });
  assert.ok(slow.elapsed() <= 10_000, `ended at ${slow.elapsed()} ms`);
  assert.ok(slow.sent.length >= 4, `retried after the new login: ${slow.sent.join(', ')}`);
  assert.ok(
    slow.sent.filter((line) => line.endsWith('get')).every((line) => Number(line.split(' ')[0]) < 10_000),
    slow.sent.join(', '),
  );
  // 10 s to the 401: the budget is spent, so the 401 is the answer, without a second login.
  const spent = timed(10_000, [401]);
  await assert.rejects(spent.client.purchaseOrders.get('x', { location: 'loc' }), { status: 401 });
  assert.deepEqual(spent.sent, ['0 login', '0 get']);
});

test('sync since takes a real day or an RFC 3339 instant, nothing Date.parse merely guesses at', () => {
  for (const since of [
    '2026-02-30',
    '2025-13-01',
    '1',
    '2026',
    '2026-02-01 09:00:00Z',
    '2026-02-01T09:00:00+0100',
  ])
    assert.throws(() => createSyncState(since), TypeError, since);
  assert.equal(createSyncState('2024-02-29').day, '2024-02-29');
  assert.equal(createSyncState('2026-02-01T23:30:00-02:00').day, '2026-02-02');
  assert.throws(() => createSyncState({ day: '2026-02-30', seen: {} }), TypeError);
});

test('a since that is no watermark, day or instant is a TypeError from sync itself, so a finally saving run.watermark never hides it', async () => {
  // A watermark read back from storage may be damaged or hand-edited: each was a TypeError from inside the client
  // ("Cannot convert undefined or null to object"), or a RangeError, and only once iterated, when the README's
  // `finally` then wrote run.watermark, still undefined, and failed with ERR_INVALID_ARG_TYPE instead.
  const cases: [unknown, RegExp][] = [
    [
      '2026-02-30',
      /^since must be a watermark \({ day, seen }\), a day \(YYYY-MM-DD\) or an RFC 3339 date-time/,
    ],
    [null, /^since must be a watermark .*, not null$/],
    [[], /^since must be a watermark .*, not \[\]$/],
    [
      { day: '2026-11-01' },
      /^since is not a watermark: seen must be an object of record ids and their modifiedDate, not undefined$/,
    ],
    [{ day: '2026-11-01', seen: null }, /^since is not a watermark: seen must be an object .*, not null$/],
    [
      { day: 20261101, seen: {} },
      /^since is not a watermark: day must be null or a day \(YYYY-MM-DD\), not 20261101$/,
    ],
    [
      { day: '2026-11-28', seen: { a: 'yesterday' } },
      /^since is not a watermark: seen\.a must be a modifiedDate \(a date-time\), not "yesterday"$/,
    ],
    [
      { day: '2026-11-28', seen: {}, from: 'now' },
      /^since is not a watermark: from must be an RFC 3339 date-time, not "now"$/,
    ],
  ];
  for (const [since, message] of cases) {
    const { client, sent } = scripted(LOGIN);
    assert.throws(
      () => client.inventoryHistory.sync({ location: 'loc', since: since as Watermark }),
      (error: unknown) => {
        assert.ok(error instanceof TypeError, String(error));
        assert.match(error.message, message);
        return true;
      },
      JSON.stringify(since),
    );
    assert.deepEqual(sent, []);
  }
  // A filter the sync refuses when iterated still leaves a watermark (where it started), as every ending does.
  const { client } = scripted(LOGIN);
  const filter = { updatedDateRange: { startDate: '2025-01-01' } } as PurchaseOrdersSearchRequest;
  const run = client.purchaseOrders.sync({ location: 'loc', since: '2025-06-01', filter });
  await assert.rejects(
    (async () => {
      for await (const _ of run) void _;
    })(),
    TypeError,
  );
  assert.deepEqual(run.watermark, { day: '2025-06-01', seen: {} });
});
