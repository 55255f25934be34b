import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { OPERATIONS, type StampedEntry } from '../../src/sandbox/journal-entry.js';
import { type Finding, judgeClient, MAX_EXAMPLES, RULES } from '../../src/sandbox/report.js';

const T0 = Date.UTC(2025, 2, 10, 10);
const S = 1000;
const MIN = 60 * S;
const CLIENT = 'client-a';
const OTHER = 'client-b';

/**
 * Builds journal entries in order; `at` is ms after T0. Each entry gets the next seq, a stamp of the same (answered
 * in the order built) and request id `r<seq>`.
 */
const journal = () => {
  const entries: StampedEntry[] = [];
  const add = (at: number, fields: Partial<StampedEntry>): StampedEntry => {
    const seq = entries.length;
    const timeMs = T0 + at;
    const entry: StampedEntry = {
      id: `0:${seq}`,
      seq,
      time: new Date(timeMs).toISOString(),
      timeMs,
      stamp: seq,
      method: 'GET',
      path: '/',
      status: 200,
      durationMs: 0,
      clientId: CLIENT,
      requestId: `r${seq}`,
      ...fields,
    };
    entries.push(entry);
    return entry;
  };
  return {
    entries,
    login: (at: number, fields: Partial<StampedEntry> = {}) =>
      add(at, {
        method: 'POST',
        path: '/authentication/v1/authentication/login',
        operation: OPERATIONS.login,
        // Only a successful login issues a token.
        ...((fields.status ?? 200) === 200
          ? { tokenFingerprint: `tok-${entries.length}`, tokenExpiresAtMs: T0 + at + 24 * 60 * MIN }
          : {}),
        ...fields,
      }),
    oauth: (at: number, fields: Partial<StampedEntry> = {}) =>
      add(at, { method: 'POST', path: '/oauth2/token', operation: OPERATIONS.oauthToken, ...fields }),
    /** A purchase-order search (inventory with `operation` and `path`). */
    search: (at: number, fields: Partial<StampedEntry> = {}) =>
      add(at, {
        method: 'POST',
        path: '/v1/purchaseOrders/search',
        operation: OPERATIONS.searchPurchaseOrders,
        location: 'loc-1',
        tokenFingerprint: 'tok',
        body: {},
        hasNextPage: false,
        ...fields,
      }),
    get: (at: number, fields: Partial<StampedEntry> = {}) =>
      add(at, {
        path: '/v1/purchaseOrders/0b7f1f4e-0000-4000-8000-000000000001',
        operation: OPERATIONS.getPurchaseOrder,
        location: 'loc-1',
        tokenFingerprint: 'tok',
        ...fields,
      }),
    add,
  };
};

/** The entry without a client id (a request whose client is not known). */
const anonymous = (entry: StampedEntry) => {
  delete entry.clientId;
  return entry;
};
/** An incremental search body. */
const SINCE_TODAY = { updatedDateRange: { startDate: '2025-03-10' } };

const ids = (...entries: StampedEntry[]) => entries.map((e) => e.requestId);
const only = (findings: Finding[], rule: Finding['rule']) => {
  assert.deepEqual(
    findings.map((f) => f.rule),
    [rule],
    JSON.stringify(findings, null, 2),
  );
  return findings[0]!;
};

const INVENTORY = {
  path: '/v1/inventoryHistory/search',
  operation: OPERATIONS.searchInventoryHistory,
} as const;

describe('report rules', () => {
  test('the rule list is documented, kebab-case and unique', () => {
    const idsSeen = RULES.map((r) => r.id);
    assert.equal(new Set(idsSeen).size, idsSeen.length);
    for (const rule of RULES) {
      assert.match(rule.id, /^[a-z0-9]+(-[a-z0-9]+)*$/);
      assert.ok(['error', 'warning', 'info'].includes(rule.severity));
      assert.ok(rule.title.length > 0 && rule.description.length > 20);
    }
    for (const id of [
      'token-requests-per-hour',
      'several-tokens-at-once',
      'retry-before-retry-after',
      'repeated-failing-request',
      'token-reused-after-401',
      'first-page-polled',
      'full-rewalk-without-date-range',
      'server-error-retried-at-once',
    ])
      assert.ok(idsSeen.includes(id as never), id);
  });

  test('no traffic, no findings', () => {
    assert.deepEqual(judgeClient([], CLIENT), []);
  });
});

describe('token-requests-per-hour', () => {
  test('5 token requests within the hour from 10:00 are 3 too many', () => {
    const j = journal();
    j.login(0);
    j.login(10 * MIN);
    const third = j.oauth(20 * MIN, { status: 401 }); // any status counts
    const fourth = j.login(30 * MIN);
    const fifth = j.login(50 * MIN);
    const f = only(judgeClient(j.entries, CLIENT), 'token-requests-per-hour');
    assert.equal(f.severity, 'error');
    assert.equal(f.count, 3);
    assert.deepEqual(f.exampleRequestIds, ids(third, fourth, fifth));
    assert.match(f.message, /5 token requests in the hour from 2025-03-10 10:00 UTC/);
    assert.match(f.message, /one token a day/);
  });

  test('the window slides: 3 requests in 59 minutes straddling an hour boundary', () => {
    const j = journal();
    j.login(30 * MIN);
    j.login(60 * MIN);
    const third = j.login(89 * MIN);
    const f = only(judgeClient(j.entries, CLIENT), 'token-requests-per-hour');
    assert.equal(f.count, 1);
    assert.deepEqual(f.exampleRequestIds, ids(third));
    assert.match(f.message, /3 token requests in the hour from 2025-03-10 10:30 UTC/);
  });

  test('near miss: 2 token requests an hour, or one every 30 minutes', () => {
    const j = journal();
    j.login(0);
    j.login(59 * MIN);
    j.login(2 * 60 * MIN);
    j.login(2 * 60 * MIN + 30 * MIN);
    j.login(3 * 60 * MIN);
    assert.deepEqual(judgeClient(j.entries, CLIENT), []);
  });

  test("a server's short --token-ttl allows one more token per lifetime in the hour", () => {
    const j = journal();
    // --token-ttl 600: a correct client renews every 10 minutes, 7 token requests in any hour.
    for (let i = 0; i < 7; i++) j.login(i * 10 * MIN);
    assert.deepEqual(judgeClient(j.entries, CLIENT, { tokenTtlSeconds: 600 }), []);
    // Without the server's lifetime (the platform's day-long tokens) the same traffic is 5 too many.
    assert.equal(only(judgeClient(j.entries, CLIENT), 'token-requests-per-hour').count, 5);
    // A client renewing faster than the lifetime is still caught: 8 requests within an hour (0 to 50 and 5 to 60).
    j.login(5 * MIN);
    j.login(15 * MIN);
    const f = only(judgeClient(j.entries, CLIENT, { tokenTtlSeconds: 600 }), 'token-requests-per-hour');
    assert.equal(f.count, 2);
    // A lifetime of a day allows no more than the platform's two.
    const day = journal();
    for (let i = 0; i < 3; i++) day.login(i * MIN);
    assert.equal(
      only(judgeClient(day.entries, CLIENT, { tokenTtlSeconds: 86_400 }), 'token-requests-per-hour').count,
      1,
    );
  });

  test('examples stop at 5', () => {
    const j = journal();
    for (let i = 0; i < 10; i++) j.login(i * MIN);
    const f = only(judgeClient(j.entries, CLIENT), 'token-requests-per-hour');
    assert.equal(f.count, 8);
    assert.equal(f.exampleRequestIds.length, MAX_EXAMPLES);
    assert.deepEqual(f.exampleRequestIds, ['r2', 'r3', 'r4', 'r5', 'r6']);
  });

  test('a login that answers a 401 to the token it held is not counted: injected invalidToken every third search', () => {
    const j = journal();
    j.login(0, { tokenFingerprint: 'T' });
    // The same incremental search every 2 minutes; every third refused, then sent again after a new login.
    for (let i = 1; i <= 9; i++) {
      const at = i * 2 * MIN;
      if (i % 3 !== 0) j.search(at, { tokenFingerprint: 'T', body: SINCE_TODAY });
      else {
        // An injected invalid_token refuses a token that is still good.
        j.search(at, {
          tokenFingerprint: 'T',
          status: 401,
          fault: 'rule-1 invalid-token',
          body: SINCE_TODAY,
        });
        // The login answers the same token while it has long to live.
        j.login(at + S, { tokenFingerprint: 'T' });
        j.search(at + 2 * S, { tokenFingerprint: 'T', body: SINCE_TODAY });
      }
    }
    assert.deepEqual(judgeClient(j.entries, CLIENT), []);
  });

  test('a real 401 (revoked, rotated key) brings a new token that is not counted either, one login per refusal', () => {
    const j = journal();
    j.login(0, { tokenFingerprint: 'A' });
    j.search(1 * MIN, { tokenFingerprint: 'A', status: 401 });
    j.login(2 * MIN, { tokenFingerprint: 'B' });
    j.search(3 * MIN, { tokenFingerprint: 'B', status: 401 });
    j.login(4 * MIN, { tokenFingerprint: 'C' });
    j.search(5 * MIN, { tokenFingerprint: 'C' });
    assert.deepEqual(judgeClient(j.entries, CLIENT), []);
    // Logins after the same refusal answer nothing: they count, the first login with them.
    j.login(6 * MIN, { tokenFingerprint: 'D' });
    const extra = j.login(7 * MIN, { tokenFingerprint: 'E' });
    const f = only(judgeClient(j.entries, CLIENT), 'token-requests-per-hour');
    assert.deepEqual([f.count, f.exampleRequestIds], [1, ids(extra)]);
  });

  test('a login with no 401 before it counts: not after a 401 to an older token, nor before the 401 was answered', () => {
    const j = journal();
    j.login(0, { tokenFingerprint: 'A' });
    j.login(1 * MIN, { tokenFingerprint: 'B' });
    // A 401 to the token the client had already replaced: no reason to log in again.
    j.search(2 * MIN, { tokenFingerprint: 'A', status: 401 });
    const third = j.login(3 * MIN, { tokenFingerprint: 'C' });
    // A slow request refused only after the next login had been sent: that login did not answer it.
    j.search(4 * MIN, { tokenFingerprint: 'C', status: 401, durationMs: 2 * MIN });
    const fourth = j.login(5 * MIN, { tokenFingerprint: 'D' });
    // A 401 to a request that carried no token at all: a login then is no answer to a refused token.
    delete j.search(6 * MIN, { status: 401 }).tokenFingerprint;
    const fifth = j.login(7 * MIN, { tokenFingerprint: 'E' });
    const f = only(judgeClient(j.entries, CLIENT), 'token-requests-per-hour');
    assert.deepEqual(f.exampleRequestIds, ids(third, fourth, fifth));
  });

  test('a token request a fault rule failed (status, reset, cut body), or the client gave up on before its answer, is not counted: the client never had a token', () => {
    const j = journal();
    j.login(0, { status: 502, fault: 'rule-1 status=502' });
    j.login(2 * S, { status: 200, fault: 'rule-2 reset', tokenFingerprint: 'lost' });
    j.login(5 * S, { status: 200, fault: 'header cut-body', tokenFingerprint: 'lost' });
    j.login(9 * S, { status: 429, fault: 'rule-3 status=429;retry-after=1', retryAfterSeconds: 1 });
    j.login(20 * S, { tokenFingerprint: 'T' });
    j.login(40 * MIN, { tokenFingerprint: 'U' });
    assert.deepEqual(judgeClient(j.entries, CLIENT), []);
    // A login the client gave up on during injected latency (its timeout, then a retry) never handed it a token:
    // the journal says status 0, and it is not counted either.
    const gaveUp = journal();
    gaveUp.login(0, { status: 0, fault: 'rule-1 latency=30000ms', tokenFingerprint: 'issued-too-late' });
    gaveUp.login(10 * S, { status: 0, fault: 'rule-1 latency=30000ms', tokenFingerprint: 'issued-too-late' });
    gaveUp.login(20 * S, { tokenFingerprint: 'T' });
    gaveUp.login(40 * MIN, { tokenFingerprint: 'U' });
    assert.deepEqual(judgeClient(gaveUp.entries, CLIENT), []);
    // A fault that still delivered the token (latency, slow body) counts, as does a real refusal.
    const k = journal();
    k.login(0, { fault: 'rule-1 latency=800ms' });
    k.login(1 * MIN, { fault: 'rule-2 slow-body=100' });
    const third = k.login(2 * MIN, { status: 400 });
    assert.deepEqual(
      only(judgeClient(k.entries, CLIENT), 'token-requests-per-hour').exampleRequestIds,
      ids(third),
    );
  });
});

describe('several-tokens-at-once', () => {
  test('one token per location, used side by side', () => {
    const j = journal();
    const a = j.search(0, { tokenFingerprint: 'A', location: 'loc-1' });
    const b = j.search(1 * S, { tokenFingerprint: 'B', location: 'loc-2' });
    const c = j.search(2 * S, { tokenFingerprint: 'C', location: 'loc-3' });
    for (let i = 1; i <= 3; i++) {
      j.search(i * MIN, { tokenFingerprint: 'A', location: 'loc-1', body: SINCE_TODAY });
      j.search(i * MIN + S, { tokenFingerprint: 'B', location: 'loc-2', body: SINCE_TODAY });
      j.search(i * MIN + 2 * S, { tokenFingerprint: 'C', location: 'loc-3', body: SINCE_TODAY });
    }
    const f = only(judgeClient(j.entries, CLIENT), 'several-tokens-at-once');
    assert.equal(f.severity, 'warning');
    assert.equal(f.count, 3);
    assert.deepEqual(f.exampleRequestIds, ids(a, b, c));
    assert.match(f.message, /3 access tokens were in use at the same time \(one per location\)/);
  });

  test('only the tokens whose use overlaps count', () => {
    const j = journal();
    j.get(0, { tokenFingerprint: 'A' });
    j.get(10 * MIN, { tokenFingerprint: 'A' });
    const b = j.get(20 * MIN, { tokenFingerprint: 'B' });
    const c = j.get(25 * MIN, { tokenFingerprint: 'C' });
    j.get(30 * MIN, { tokenFingerprint: 'B' });
    const f = only(judgeClient(j.entries, CLIENT), 'several-tokens-at-once');
    assert.equal(f.count, 2);
    assert.deepEqual(f.exampleRequestIds, ids(b, c));
  });

  test('near miss: a new token that takes over from the old one', () => {
    const j = journal();
    j.login(0, { tokenFingerprint: 'A' });
    j.get(1 * S, { tokenFingerprint: 'A', location: 'loc-1' });
    j.get(2 * S, { tokenFingerprint: 'A', location: 'loc-2' });
    j.get(60 * MIN, { tokenFingerprint: 'A', location: 'loc-1' });
    j.login(24 * 60 * MIN, { tokenFingerprint: 'B' });
    j.get(24 * 60 * MIN + S, { tokenFingerprint: 'B', location: 'loc-1' });
    j.get(24 * 60 * MIN + 2 * S, { tokenFingerprint: 'B', location: 'loc-2' });
    assert.deepEqual(judgeClient(j.entries, CLIENT), []);
  });

  test('near miss: the refused token is not in use (its 401 comes after the new token)', () => {
    const j = journal();
    j.get(0, { tokenFingerprint: 'A' });
    j.get(10 * S, { tokenFingerprint: 'B' });
    j.get(10 * S + 500, { tokenFingerprint: 'A', status: 401, durationMs: 5 }); // in flight, refused
    j.get(20 * S, { tokenFingerprint: 'B' });
    assert.deepEqual(judgeClient(j.entries, CLIENT), []);
  });
});

describe('retry-before-retry-after', () => {
  test('a request 2 s after a 429 that asked for 30 s, then one after it', () => {
    const j = journal();
    j.search(0, { status: 429, retryAfterSeconds: 30, durationMs: 100 });
    const early = j.search(2100);
    const early2 = j.get(29 * S, { location: 'loc-2' }); // any retail request is held back
    j.get(31 * S);
    const f = only(judgeClient(j.entries, CLIENT), 'retry-before-retry-after');
    assert.equal(f.severity, 'error');
    assert.equal(f.count, 2);
    assert.deepEqual(f.exampleRequestIds, ids(early, early2));
    assert.match(f.message, /2 requests were sent before the Retry-After/);
    assert.match(f.message, /2\.0 s after a 429 that asked for 30 s/);
  });

  test('an injected 429 counts the same as a real one', () => {
    const j = journal();
    j.get(0, { status: 429, retryAfterSeconds: 5, fault: 'status=429' });
    const early = j.get(4999);
    const f = only(judgeClient(j.entries, CLIENT), 'retry-before-retry-after');
    assert.deepEqual(f.exampleRequestIds, ids(early));
  });

  test('a throttled login holds back token requests, not retail requests with a valid token', () => {
    const j = journal();
    j.login(0, { status: 429, retryAfterSeconds: 60 });
    j.get(10 * S);
    const early = j.login(20 * S, { status: 401 });
    const f = only(judgeClient(j.entries, CLIENT), 'retry-before-retry-after');
    assert.deepEqual(f.exampleRequestIds, ids(early));
  });

  test('near miss: a request exactly at Retry-After, and one already in flight', () => {
    const j = journal();
    j.search(0, { status: 429, retryAfterSeconds: 30, durationMs: 200 });
    j.get(100); // sent before the 429 was answered
    j.search(30 * S + 200); // exactly when Retry-After has passed
    assert.deepEqual(judgeClient(j.entries, CLIENT), []);
  });

  test('a retry exactly Retry-After after the 429 arrived is not early, however long the 429 took', () => {
    // A frozen clock advanced by Retry-After: the 429 took real time, the virtual clock none.
    const j = journal();
    j.get(0, { status: 429, retryAfterSeconds: 2, durationMs: 45.25 });
    j.get(2 * S);
    assert.deepEqual(judgeClient(j.entries, CLIENT), []);
  });

  test("another client's 429 does not hold this client back", () => {
    const j = journal();
    j.search(0, { status: 429, retryAfterSeconds: 30, clientId: OTHER });
    anonymous(j.login(1 * S, { status: 429, retryAfterSeconds: 30 }));
    j.search(2 * S);
    j.login(3 * S);
    assert.deepEqual(judgeClient(j.entries, CLIENT), []);
  });
});

describe('repeated-failing-request', () => {
  test('the same bad search 3 times (body keys in any order) and a missing record 4 times', () => {
    const j = journal();
    const bad = {
      updatedDateRange: { startDate: '2025-03-10', endDate: '2025-03-01' },
      includeArchived: true,
    };
    const first = j.search(0, { status: 400, code: 40001, body: bad });
    j.search(1 * MIN, {
      status: 400,
      body: { includeArchived: true, updatedDateRange: bad.updatedDateRange },
    });
    j.search(2 * MIN, { status: 200, body: {} }); // not consecutive: still counts
    j.search(3 * MIN, { status: 400, body: bad });
    const missing = j.get(4 * MIN, { status: 404 });
    for (let i = 5; i <= 7; i++) j.get(i * MIN, { status: 404 });
    const f = only(judgeClient(j.entries, CLIENT), 'repeated-failing-request');
    assert.equal(f.severity, 'warning');
    assert.equal(f.count, 2);
    assert.deepEqual(f.exampleRequestIds, ids(first, missing));
    assert.match(f.message, /2 requests were sent unchanged 3 times or more/);
    assert.match(f.message, /GET \/v1\/purchaseOrders\/\S+ at loc-1: 404 4 times/);
  });

  test('near miss: changed between tries (body, page token, location or status), twice only, or 429', () => {
    const j = journal();
    j.search(0, { status: 400, body: { a: 1 } });
    j.search(1 * S, { status: 400, body: { a: 2 } });
    j.search(2 * S, { status: 400, body: { a: [1] } });
    j.search(3 * S, { status: 400, pageToken: 'p1' });
    j.search(4 * S, { status: 400, pageToken: 'p2' });
    j.search(5 * S, { status: 400, pageToken: 'p3' });
    j.get(6 * S, { status: 403, location: 'loc-1' });
    j.get(7 * S, { status: 403, location: 'loc-2' });
    j.get(8 * S, { status: 403, location: 'loc-3' });
    j.get(9 * S, { status: 404, location: 'loc-9' });
    j.get(10 * S, { status: 403, location: 'loc-9' });
    j.get(11 * S, { status: 404, location: 'loc-9' });
    j.get(12 * S, { path: '/v1/purchaseOrders/x', status: 400 });
    // Searches whose bodies were not JSON: never recorded, so never known to be unchanged.
    for (let i = 13; i <= 15; i++) j.search(i * S, { status: 400, code: 40002, body: undefined });
    j.get(13 * S, { path: '/v1/purchaseOrders/x', status: 400 });
    for (let i = 0; i < 3; i++) j.get(20 * S + i * 10 * S, { status: 429, retryAfterSeconds: 1 });
    assert.deepEqual(judgeClient(j.entries, CLIENT), []);
  });

  test('a 401 is the same request only with the same token: each expired token in turn is not a repeat', () => {
    const j = journal();
    for (let i = 0; i < 3; i++) j.get(i * 10 * MIN, { status: 401, tokenFingerprint: `tok-${i}` });
    assert.deepEqual(judgeClient(j.entries, CLIENT), []);
    const same = journal();
    const first = same.get(0, { status: 401, tokenFingerprint: 'A' });
    same.get(1 * S, { status: 401, tokenFingerprint: 'A' });
    same.get(2 * S, { status: 401, tokenFingerprint: 'A' });
    const findings = judgeClient(same.entries, CLIENT);
    assert.deepEqual(
      findings.map((f) => f.rule),
      ['repeated-failing-request', 'token-reused-after-401'],
    );
    assert.deepEqual(findings[0]?.exampleRequestIds, ids(first));
  });
  test('an injected invalid_token, whose token a new login may hand back, is a repeat of nothing; no token at all is', () => {
    const j = journal();
    for (let i = 0; i < 3; i++) {
      j.get(i * 10 * MIN, { status: 401, fault: `rule-1 invalid-token` });
      j.login(i * 10 * MIN + S, { tokenFingerprint: 'tok' });
      j.get(i * 10 * MIN + 2 * S);
    }
    assert.deepEqual(
      judgeClient(j.entries, CLIENT).map((f) => f.rule),
      [],
    );
    const bare = journal();
    const first = bare.get(0, { status: 401 });
    for (let i = 1; i < 3; i++) bare.get(i * S, { status: 401 });
    for (const entry of bare.entries) delete entry.tokenFingerprint;
    assert.deepEqual(
      only(judgeClient(bare.entries, CLIENT), 'repeated-failing-request').exampleRequestIds,
      ids(first),
    );
  });
});

describe('token-reused-after-401', () => {
  test('an expired token used again after its 401', () => {
    const j = journal();
    j.get(0, { tokenFingerprint: 'A' });
    j.get(10 * MIN, { tokenFingerprint: 'A', status: 401, code: 40101 });
    const again = j.search(11 * MIN, { tokenFingerprint: 'A', status: 401 });
    const again2 = j.get(12 * MIN, { tokenFingerprint: 'A', status: 401, location: 'loc-2' });
    const f = only(judgeClient(j.entries, CLIENT), 'token-reused-after-401');
    assert.equal(f.severity, 'error');
    assert.equal(f.count, 2);
    assert.deepEqual(f.exampleRequestIds, ids(again, again2));
    assert.match(f.message, /2 requests reused a token already refused with 401/);
  });

  test('near miss: a new login after the 401, and a request already in flight with the old token', () => {
    const j = journal();
    j.get(0, { tokenFingerprint: 'A' });
    j.get(10 * MIN, { tokenFingerprint: 'A', status: 401, durationMs: 50 });
    j.get(10 * MIN + 20, { tokenFingerprint: 'A', status: 401, location: 'loc-2' }); // sent before the 401 came
    j.login(10 * MIN + 1 * S, { tokenFingerprint: 'B' });
    j.get(10 * MIN + 2 * S, { tokenFingerprint: 'B' });
    assert.deepEqual(judgeClient(j.entries, CLIENT), []);
  });

  test('a token kept after an injected invalid_token, never logging in again, is reused', () => {
    const j = journal();
    j.login(0, { tokenFingerprint: 'T' });
    j.get(1 * MIN, { tokenFingerprint: 'T' });
    j.get(2 * MIN, { tokenFingerprint: 'T', status: 401, fault: 'rule-1 invalid-token', durationMs: 5 });
    // The token is still good, so the server answers; the client was told it was not.
    const again = j.get(2 * MIN + S, { tokenFingerprint: 'T' });
    const again2 = j.search(3 * MIN, { tokenFingerprint: 'T' });
    const f = only(judgeClient(j.entries, CLIENT), 'token-reused-after-401');
    assert.deepEqual([f.count, f.exampleRequestIds], [2, ids(again, again2)]);
    assert.match(f.message, /2 requests reused a token already refused with 401 .*with no token request/);
  });

  test('a login that hands the refused token back makes it good again: injected invalid_token, then the same token', () => {
    const j = journal();
    j.login(0, { tokenFingerprint: 'T' });
    j.get(1 * MIN, { tokenFingerprint: 'T', status: 401, fault: 'rule-1 invalid-token', durationMs: 5 });
    j.login(1 * MIN + S, { tokenFingerprint: 'T' });
    j.get(1 * MIN + 2 * S, { tokenFingerprint: 'T' });
    // Again, on a frozen clock: the 401, the login and the retry all at one instant, in that order.
    j.get(5 * MIN, { tokenFingerprint: 'T', status: 401, fault: 'rule-1 invalid-token', durationMs: 5 });
    j.login(5 * MIN, { tokenFingerprint: 'T', durationMs: 5 });
    j.get(5 * MIN, { tokenFingerprint: 'T' });
    j.get(6 * MIN, { tokenFingerprint: 'T' });
    assert.deepEqual(judgeClient(j.entries, CLIENT), []);
  });

  test('only a token request after the 401 that hands that token back excuses its reuse', () => {
    const j = journal();
    j.login(0, { tokenFingerprint: 'A' });
    j.get(1 * MIN, { tokenFingerprint: 'A', status: 401, code: 40101 });
    // A new token, but the old one sent again.
    j.login(2 * MIN, { tokenFingerprint: 'B' });
    const stale = j.get(3 * MIN, { tokenFingerprint: 'A', status: 401 });
    // Token requests that handed nothing back: refused, or failed by a fault.
    j.get(4 * MIN, { tokenFingerprint: 'T', status: 401, fault: 'rule-1 invalid-token' });
    j.login(5 * MIN, { status: 429, retryAfterSeconds: 1 });
    j.login(6 * MIN, { tokenFingerprint: 'T', fault: 'rule-2 cut-body' });
    const kept = j.get(7 * MIN, { tokenFingerprint: 'T' });
    // A login sent before the 401 (answered after it) answered no refusal.
    j.get(8 * MIN, { tokenFingerprint: 'U', status: 401, fault: 'rule-1 invalid-token', durationMs: 2 * S });
    j.login(8 * MIN - 1, { tokenFingerprint: 'U', durationMs: 3 * S });
    const early = j.get(9 * MIN, { tokenFingerprint: 'U' });
    const f = judgeClient(j.entries, CLIENT).find((f) => f.rule === 'token-reused-after-401');
    assert.deepEqual(f?.exampleRequestIds, ids(stale, kept, early));
  });

  test('near miss: a 401 to a call sent before the re-login, answered after it, needs no second re-login', () => {
    const j = journal();
    j.login(0, { tokenFingerprint: 'T' });
    // Two calls at once, both refused; the second slowly, after the first had logged in again and retried.
    j.get(1 * MIN, { tokenFingerprint: 'T', status: 401, fault: 'rule-1 invalid-token', durationMs: 10 });
    j.get(1 * MIN + 1, {
      tokenFingerprint: 'T',
      status: 401,
      fault: 'rule-1 invalid-token',
      durationMs: 900,
    });
    j.login(1 * MIN + 100, { tokenFingerprint: 'T', durationMs: 10 });
    j.get(1 * MIN + 200, { tokenFingerprint: 'T' });
    j.get(1 * MIN + S, { tokenFingerprint: 'T' });
    assert.deepEqual(judgeClient(j.entries, CLIENT), []);
  });

  test('a token request issuing a fingerprint is not a use of it', () => {
    const j = journal();
    j.get(0, { tokenFingerprint: 'A', status: 401 });
    j.login(1 * S, { tokenFingerprint: 'A' }); // cannot really happen, but is not a reuse
    assert.deepEqual(judgeClient(j.entries, CLIENT), []);
  });
});

describe('first-page-polled', () => {
  test('the same first page every 30 s', () => {
    const j = journal();
    const body = { updatedDateRange: { startDate: '2025-03-10' } };
    j.search(0, { body, pageSize: 50 });
    const second = j.search(30 * S, { body, pageSize: 50 });
    const third = j.search(60 * S, { body: { updatedDateRange: { startDate: '2025-03-10' } }, pageSize: 50 });
    j.search(70 * S, { body, pageSize: 100 }); // another page size: another page
    j.search(80 * S, { body, pageSize: 50, pageToken: 'p2' }); // a next page is not a first page
    const f = only(judgeClient(j.entries, CLIENT), 'first-page-polled');
    assert.equal(f.severity, 'warning');
    assert.equal(f.count, 2);
    assert.deepEqual(f.exampleRequestIds, ids(second, third));
    assert.match(f.message, /requested 2 times less than 60 s after the previous one/);
    assert.match(f.message, /searchPurchaseOrders at loc-1 again after 30\.0 s/);
  });

  test('near miss: 61 s apart, exactly 60 s apart, other locations, other operation, failed first page retried', () => {
    const j = journal();
    const body = SINCE_TODAY;
    j.search(0, { body });
    j.search(61 * S, { body });
    j.search(121 * S, { body });
    j.search(0.5 * S, { body, location: 'loc-2' });
    j.search(1 * S, { body, ...INVENTORY });
    j.search(2 * S, { body, location: 'loc-3', status: 503 });
    j.search(3 * S, { body, location: 'loc-3', status: 503 });
    j.search(5 * S, { body, location: 'loc-3' });
    assert.deepEqual(judgeClient(j.entries, CLIENT), []);
  });

  test('near miss: a first page a fault cut or delayed is asked again at once', () => {
    const j = journal();
    j.search(0, { body: SINCE_TODAY, fault: 'rule-1 cut=half' });
    j.search(1 * S, { body: SINCE_TODAY, fault: 'rule-2 latency=5000ms' });
    j.search(7 * S, { body: SINCE_TODAY });
    assert.deepEqual(judgeClient(j.entries, CLIENT), []);
    // The answer the client did get counts: asking once more at once is polling.
    const again = j.search(8 * S, { body: SINCE_TODAY });
    assert.deepEqual(only(judgeClient(j.entries, CLIENT), 'first-page-polled').exampleRequestIds, ids(again));
  });
  test('starting a walk over after its page token was refused (40005, injected or real) is no poll', () => {
    const j = journal();
    const body = SINCE_TODAY;
    j.search(0, { body, pageSize: 50, hasNextPage: true });
    j.search(1 * S, {
      body,
      pageSize: 50,
      pageToken: 'p2',
      status: 400,
      code: 40005,
      fault: 'rule-1 bad-page-token',
    });
    j.search(2 * S, { body, pageSize: 50, hasNextPage: true });
    j.search(3 * S, { body, pageSize: 50, pageToken: 'p2', status: 400, code: 40005 });
    j.search(4 * S, { body, pageSize: 50, hasNextPage: true });
    j.search(5 * S, { body, pageSize: 50, pageToken: 'p2' });
    assert.deepEqual(judgeClient(j.entries, CLIENT), []);
    // Once the walk went on, its first page again is polling; and another search's refusal excuses nothing.
    j.search(6 * S, { body, pageSize: 50, pageToken: 'p2', status: 400, code: 40005, location: 'loc-2' });
    const again = j.search(7 * S, { body, pageSize: 50, hasNextPage: true });
    assert.deepEqual(only(judgeClient(j.entries, CLIENT), 'first-page-polled').exampleRequestIds, ids(again));
  });
  test('starting a walk over after a later page failed (5xx, reset or cut, real or injected) is no poll', () => {
    const j = journal();
    const body = SINCE_TODAY;
    j.search(0, { body, hasNextPage: true });
    j.search(1 * S, { body, pageToken: 'p2', status: 503, fault: 'rule-1 status=503' });
    j.search(2 * S, { body, hasNextPage: true });
    j.search(3 * S, { body, pageToken: 'p2', fault: 'rule-1 cut-body' });
    j.search(4 * S, { body, hasNextPage: true });
    j.search(5 * S, { body, pageToken: 'p2', status: 500 });
    j.search(6 * S, { body, hasNextPage: true });
    j.search(7 * S, { body, pageToken: 'p2' });
    assert.deepEqual(judgeClient(j.entries, CLIENT), []);
    // A 429 on a later page asks the client to wait, not to start over: its first page again is polling.
    j.search(8 * S, { body, pageToken: 'p2', status: 429, retryAfterSeconds: 1 });
    const again = j.search(9 * S, { body, hasNextPage: true });
    assert.deepEqual(only(judgeClient(j.entries, CLIENT), 'first-page-polled').exampleRequestIds, ids(again));
  });
});

describe('full-rewalk-without-date-range', () => {
  const walk = (
    j: ReturnType<typeof journal>,
    at: number,
    pages: number,
    fields: Partial<StampedEntry> = {},
  ): StampedEntry => {
    const first = j.search(at, { hasNextPage: pages > 1, ...fields });
    for (let p = 2; p <= pages; p++)
      j.search(at + p * S, { pageToken: `p${p}`, hasNextPage: p < pages, ...fields });
    return first;
  };

  test('the whole purchase order history walked 3 times', () => {
    const j = journal();
    walk(j, 0, 3);
    const second = walk(j, 10 * MIN, 3);
    j.search(15 * MIN, { status: 503 }); // a failed first page starts no walk
    const third = walk(j, 20 * MIN, 3);
    const f = only(judgeClient(j.entries, CLIENT), 'full-rewalk-without-date-range');
    assert.equal(f.severity, 'warning');
    assert.equal(f.count, 2);
    assert.deepEqual(f.exampleRequestIds, ids(second, third));
    assert.match(f.message, /walked again 2 times without updatedDateRange/);
    assert.match(f.message, /searchPurchaseOrders at loc-1: 3 full walks of 3 pages/);
  });

  test('a walk interrupted by a retried page still completes; null updatedDateRange is none', () => {
    const j = journal();
    walk(j, 0, 2, { body: { updatedDateRange: null } });
    const second = j.search(10 * MIN, { hasNextPage: true, body: { updatedDateRange: null } });
    j.search(10 * MIN + S, {
      pageToken: 'p2',
      status: 429,
      retryAfterSeconds: 1,
      body: { updatedDateRange: null },
    });
    j.search(10 * MIN + 5 * S, { pageToken: 'p2', hasNextPage: false, body: { updatedDateRange: null } });
    const f = only(judgeClient(j.entries, CLIENT), 'full-rewalk-without-date-range');
    assert.deepEqual(f.exampleRequestIds, ids(second));
  });

  test('a page the client never had (a fault cut or reset it) neither ends nor counts in a walk', () => {
    const j = journal();
    walk(j, 0, 2);
    // The last page cut: the client starts over, and that second walk is its first complete one since.
    j.search(10 * MIN, { hasNextPage: true });
    j.search(10 * MIN + S, { pageToken: 'p2', hasNextPage: false, fault: 'rule-1 cut-body' });
    j.search(11 * MIN, { hasNextPage: true, fault: 'rule-1 reset' });
    assert.deepEqual(judgeClient(j.entries, CLIENT), []);
    // Retrying the cut last page completes the walk: that is a re-walk.
    const retried = j.search(12 * MIN, { hasNextPage: true });
    j.search(12 * MIN + S, { pageToken: 'p2', hasNextPage: false });
    const f = only(judgeClient(j.entries, CLIENT), 'full-rewalk-without-date-range');
    assert.deepEqual(f.exampleRequestIds, ids(retried));
    assert.match(f.message, /2 full walks of 2 pages/);
  });

  test('near miss: re-walks with updatedDateRange, an abandoned walk, other locations and filters', () => {
    const j = journal();
    walk(j, 0, 3);
    walk(j, 10 * MIN, 3, { body: { updatedDateRange: { startDate: '2025-03-10' } } });
    walk(j, 20 * MIN, 3, { body: { updatedDateRange: { startDate: '2025-03-10' } } });
    walk(j, 30 * MIN, 2, { location: 'loc-2' });
    walk(j, 40 * MIN, 2, { ...INVENTORY });
    walk(j, 50 * MIN, 2, { body: { purchaseOrderStatuses: ['OPEN'] } });
    j.search(60 * MIN, { hasNextPage: true }); // first page again, then gave up
    j.search(60 * MIN + S, { pageToken: 'p2', hasNextPage: true });
    // next pages whose first page is older than the journal
    j.search(70 * MIN, { location: 'loc-2', pageToken: 'p9', hasNextPage: false });
    assert.deepEqual(judgeClient(j.entries, CLIENT), []);
  });
});

describe('server-error-retried-at-once', () => {
  test('a 503 retried at once, twice; the third try waited', () => {
    const j = journal();
    j.get(0, { status: 503, durationMs: 100, fault: 'status=503' });
    const retry = j.get(300, { status: 503, durationMs: 100 });
    const retry2 = j.get(400, { status: 500 }); // 0 ms after the previous answer
    j.get(2 * S);
    const f = only(judgeClient(j.entries, CLIENT), 'server-error-retried-at-once');
    assert.equal(f.severity, 'warning');
    assert.equal(f.count, 2);
    assert.deepEqual(f.exampleRequestIds, ids(retry, retry2));
    assert.match(f.message, /2 requests were retried less than 1 s after a 5xx answer/);
    assert.match(f.message, /GET \/v1\/purchaseOrders\/\S+ at loc-1 200 ms after a 503/);
  });

  test('the wait is told in whole milliseconds, as measured durations are not', () => {
    const j = journal();
    j.get(0, { status: 503, durationMs: 45.2548828125 });
    j.get(300);
    const f = only(judgeClient(j.entries, CLIENT), 'server-error-retried-at-once');
    assert.match(f.message, / 255 ms after a 503\)/);
  });

  test('near miss: retried after exactly 1 s, another request at once, a request in flight, a 4xx', () => {
    const j = journal();
    j.get(0, { status: 503, durationMs: 100 });
    j.get(50); // the same request, sent before the 503 came
    j.get(200, { path: '/v1/purchaseOrders/y' }); // another request
    j.get(1100);
    j.get(2 * S, { status: 404, location: 'loc-3' });
    j.get(2 * S + 100, { status: 404, location: 'loc-3' });
    assert.deepEqual(judgeClient(j.entries, CLIENT), []);
  });
});

describe('judgeClient', () => {
  /** One login, one token for 3 locations, a first full walk then incremental walks, a 429 honoured. */
  const wellBehaved = (j: ReturnType<typeof journal>, clientId: string, fingerprint: string) => {
    const locations = ['loc-1', 'loc-2', 'loc-3'];
    const f = { clientId, tokenFingerprint: fingerprint };
    j.login(0, { clientId, tokenFingerprint: fingerprint });
    for (const [i, location] of locations.entries()) {
      for (const op of [{}, INVENTORY]) {
        const at = (i * 2 + (op === INVENTORY ? 1 : 0)) * 10 * S + S;
        j.search(at, { ...f, ...op, location, pageSize: 100, hasNextPage: true });
        j.search(at + S, { ...f, ...op, location, pageSize: 100, pageToken: 'p2', hasNextPage: true });
        j.search(at + 2 * S, { ...f, ...op, location, pageSize: 100, pageToken: 'p3', hasNextPage: false });
      }
    }
    j.get(2 * MIN, { ...f, location: 'loc-2' });
    // Incremental syncs every 15 minutes for 5 hours; one 429 is honoured.
    for (let k = 1; k <= 20; k++) {
      const body = { updatedDateRange: { startDate: '2025-03-10' } };
      for (const [i, location] of locations.entries()) {
        const at = k * 15 * MIN + i * 5 * S;
        if (k === 7 && i === 1) {
          j.search(at, {
            ...f,
            body,
            location,
            status: 429,
            retryAfterSeconds: 2,
            durationMs: 10,
            fault: 'status=429',
          });
          j.search(at + 2010, { ...f, body, location, hasNextPage: true });
          j.search(at + 3 * S, { ...f, body, location, pageToken: 'q2', hasNextPage: false });
        } else {
          j.search(at, { ...f, body, location });
          j.search(at + S, { ...f, ...INVENTORY, body, location });
        }
      }
    }
  };

  test('a well-behaved client gets no findings', () => {
    const j = journal();
    wellBehaved(j, CLIENT, 'A');
    assert.deepEqual(judgeClient(j.entries, CLIENT), []);
  });

  test("other clients' traffic never leaks into a client's report", () => {
    const j = journal();
    wellBehaved(j, CLIENT, 'A');
    // A badly behaved client beside it, breaking every rule, sharing location, bodies and even a fingerprint.
    const o = { clientId: OTHER };
    for (let i = 0; i < 5; i++) j.login(i * MIN, o);
    j.get(0, { ...o, tokenFingerprint: 'X', location: 'loc-1' });
    j.get(5 * MIN, { ...o, tokenFingerprint: 'Y', location: 'loc-2' });
    j.get(6 * MIN, { ...o, tokenFingerprint: 'X', location: 'loc-1' });
    j.get(7 * MIN, { ...o, tokenFingerprint: 'A', status: 401 });
    j.get(8 * MIN, { ...o, tokenFingerprint: 'A', status: 401 });
    j.get(9 * MIN, { ...o, tokenFingerprint: 'A', status: 401 });
    j.search(10 * MIN, { ...o, status: 429, retryAfterSeconds: 60 });
    j.search(10 * MIN + S, { ...o });
    j.search(10 * MIN + 2 * S, { ...o });
    j.search(20 * MIN, { ...o });
    j.search(20 * MIN + 2 * S, { ...o });
    anonymous(j.get(30 * MIN, { ...o, status: 401 }));
    j.get(40 * MIN, { ...o, status: 503, location: 'loc-3' });
    j.get(40 * MIN + 10, { ...o, location: 'loc-3' });

    assert.deepEqual(judgeClient(j.entries, CLIENT), []);
    const theirs = judgeClient(j.entries, OTHER);
    assert.deepEqual(
      theirs.map((f) => f.rule),
      RULES.map((r) => r.id),
    );
    const mine = new Set(j.entries.filter((e) => e.clientId === CLIENT).map((e) => e.requestId));
    for (const f of theirs)
      for (const id of f.exampleRequestIds) assert.ok(!mine.has(id), `${f.rule}: ${id}`);
    assert.deepEqual(judgeClient(j.entries, 'nobody'), []);
  });

  test('findings come in RULES order and the input is not changed', () => {
    const j = journal();
    j.search(0, { status: 429, retryAfterSeconds: 10 });
    j.search(1 * S);
    for (let i = 0; i < 3; i++) j.login(2 * S + i * S);
    const before = structuredClone(j.entries);
    const findings = judgeClient(j.entries, CLIENT);
    assert.deepEqual(
      findings.map((f) => f.rule),
      ['token-requests-per-hour', 'retry-before-retry-after'],
    );
    assert.deepEqual(j.entries, before);
  });
});

describe('properties', () => {
  const OPS = [
    { operation: OPERATIONS.login, path: '/authentication/v1/authentication/login', method: 'POST' },
    { operation: OPERATIONS.oauthToken, path: '/oauth2/token', method: 'POST' },
    { operation: OPERATIONS.searchPurchaseOrders, path: '/v1/purchaseOrders/search', method: 'POST' },
    { operation: OPERATIONS.searchInventoryHistory, path: '/v1/inventoryHistory/search', method: 'POST' },
    { operation: OPERATIONS.getPurchaseOrder, path: '/v1/purchaseOrders/x', method: 'GET' },
  ];
  const maybe = <T>(arb: fc.Arbitrary<T>) => fc.option(arb, { nil: undefined });
  const rawEntry = fc.record({
    clientId: maybe(fc.constantFrom('a', 'b')),
    // Seconds over 3 hours, few enough distinct values that windows, ties and overlaps happen.
    second: fc.integer({ min: 0, max: 3 * 3600 }),
    op: fc.constantFrom(...OPS),
    status: fc.constantFrom(200, 200, 200, 400, 401, 404, 429, 503),
    durationMs: fc.integer({ min: 0, max: 3000 }),
    location: maybe(fc.constantFrom('loc-1', 'loc-2')),
    tokenFingerprint: maybe(fc.constantFrom('A', 'B', 'C', 'D')),
    body: fc.constantFrom({}, SINCE_TODAY, { includeArchived: true }),
    pageToken: maybe(fc.constant('p2')),
    hasNextPage: fc.boolean(),
    retryAfterSeconds: fc.integer({ min: 1, max: 120 }),
    fault: maybe(
      fc.constantFrom('rule-1 status=503', 'rule-1 invalid-token', 'header reset', 'rule-2 latency=5ms'),
    ),
  });
  type RawEntry = typeof rawEntry extends fc.Arbitrary<infer R> ? R : never;
  const toJournal = (raws: RawEntry[]) =>
    raws
      .sort((x, y) => x.second - y.second)
      .map((r, seq): StampedEntry => {
        const timeMs = T0 + r.second * S;
        const search = r.op.operation.startsWith('search');
        return {
          id: `0:${seq}`,
          seq,
          time: new Date(timeMs).toISOString(),
          timeMs,
          stamp: seq,
          method: r.op.method,
          path: r.op.path,
          operation: r.op.operation,
          status: r.status,
          durationMs: r.durationMs,
          requestId: `r${seq}`,
          ...(r.clientId === undefined ? {} : { clientId: r.clientId }),
          ...(r.location === undefined ? {} : { location: r.location }),
          ...(r.tokenFingerprint === undefined ? {} : { tokenFingerprint: r.tokenFingerprint }),
          ...(search ? { body: r.body, hasNextPage: r.hasNextPage } : {}),
          ...(search && r.pageToken !== undefined ? { pageToken: r.pageToken } : {}),
          ...(r.status === 429 ? { retryAfterSeconds: r.retryAfterSeconds } : {}),
          ...(r.fault === undefined ? {} : { fault: r.fault }),
        };
      });
  const journalArb = fc.array(rawEntry, { maxLength: 120 }).map(toJournal);

  test("a client's report depends on its own entries only, in any order, and is well formed", () => {
    fc.assert(
      fc.property(journalArb, fc.integer(), (entries, seed) => {
        for (const client of ['a', 'b']) {
          const report = judgeClient(entries, client);
          assert.deepEqual(
            judgeClient(
              entries.filter((e) => e.clientId === client),
              client,
            ),
            report,
          );
          const shuffled = [...entries].sort(
            (x, y) => ((x.seq * 7919 + seed) % 101) - ((y.seq * 7919 + seed) % 101),
          );
          assert.deepEqual(judgeClient(shuffled, client), report);
          const order = RULES.map((r) => r.id);
          const mine = new Set(entries.filter((e) => e.clientId === client).map((e) => e.requestId));
          let last = -1;
          for (const f of report) {
            assert.ok(order.indexOf(f.rule) > last, 'one finding per rule, in RULES order');
            last = order.indexOf(f.rule);
            assert.equal(f.severity, RULES.find((r) => r.id === f.rule)!.severity);
            assert.ok(f.count >= 1 && f.count >= f.exampleRequestIds.length);
            assert.ok(f.exampleRequestIds.length >= 1 && f.exampleRequestIds.length <= MAX_EXAMPLES);
            for (const id of f.exampleRequestIds)
              assert.ok(mine.has(id), `${f.rule}: ${id} is not ${client}'s`);
          }
        }
      }),
      { numRuns: 300 },
    );
  });

  test('token-requests-per-hour and several-tokens-at-once agree with brute force', () => {
    fc.assert(
      fc.property(journalArb, (entries) => {
        const mine = entries.filter((e) => e.clientId === 'a');
        const report = judgeClient(entries, 'a');
        const tokenRequests = mine.filter(
          (e) => e.operation === OPERATIONS.login || e.operation === OPERATIONS.oauthToken,
        );
        // Not counted: a token request a fault failed, and the first other one sent after a 401 to the token
        // the client held (the latest issued, if any) was answered, whatever refused it.
        const delivered = tokenRequests.filter((e) => !/ (status=|reset$|cut-body$)/.test(e.fault ?? ''));
        const sentAfter = (r: StampedEntry, l: StampedEntry) =>
          r.seq < l.seq && (r.timeMs + r.durationMs <= l.timeMs || r.timeMs === l.timeMs);
        const counted = delivered.filter((l, i) => {
          const held = delivered
            .slice(0, i)
            .findLast((k) => k.tokenFingerprint !== undefined)?.tokenFingerprint;
          return !mine.some(
            (r) =>
              !tokenRequests.includes(r) &&
              r.status === 401 &&
              r.tokenFingerprint !== undefined &&
              sentAfter(r, l) &&
              !delivered.slice(0, i).some((k) => sentAfter(r, k)) &&
              (held === undefined || r.tokenFingerprint === held),
          );
        });
        const excess = counted.filter(
          (e, i) => counted.slice(0, i).filter((d) => d.timeMs > e.timeMs - 60 * MIN).length >= 2,
        );
        assert.equal(report.find((f) => f.rule === 'token-requests-per-hour')?.count ?? 0, excess.length);

        const uses = mine.filter(
          (e) => e.tokenFingerprint !== undefined && !tokenRequests.includes(e) && e.status !== 401,
        );
        const span = (fp: string) => {
          const times = uses.filter((e) => e.tokenFingerprint === fp).map((e) => e.timeMs);
          return [Math.min(...times), Math.max(...times)] as const;
        };
        const fps = [...new Set(uses.map((e) => e.tokenFingerprint!))];
        const overlapping = fps.filter((a) =>
          fps.some((b) => a !== b && span(a)[0] < span(b)[1] && span(b)[0] < span(a)[1]),
        );
        assert.equal(report.find((f) => f.rule === 'several-tokens-at-once')?.count ?? 0, overlapping.length);
      }),
      { numRuns: 300 },
    );
  });

  test('token-reused-after-401 agrees with brute force', () => {
    // One client's, and long enough that a token is refused, handed back and used again.
    const oneClient = fc
      .array(
        rawEntry.map((r): RawEntry => ({ ...r, clientId: 'a' })),
        { minLength: 20, maxLength: 80 },
      )
      .map(toJournal);
    fc.assert(
      fc.property(oneClient, (entries) => {
        // Built in the judged order: by time, then seq (the stamp).
        const mine = entries.filter((e) => e.clientId === 'a');
        const isTokenRequest = (e: StampedEntry) =>
          e.operation === OPERATIONS.login || e.operation === OPERATIONS.oauthToken;
        const uses = mine.filter((e) => e.tokenFingerprint !== undefined && !isTokenRequest(e));
        const answeredBy = (r: StampedEntry, u: StampedEntry) => r.timeMs + r.durationMs <= u.timeMs;
        const sentAfter = (l: StampedEntry, u: StampedEntry) =>
          l.timeMs + l.durationMs <= u.timeMs || l.timeMs === u.timeMs;
        const reuses = uses.filter((u) =>
          uses.some(
            (r) =>
              r.seq < u.seq &&
              r.status === 401 &&
              r.tokenFingerprint === u.tokenFingerprint &&
              answeredBy(r, u) &&
              // No token request handing that token back after the 401, answered by this use or an earlier one.
              !mine.some(
                (l) =>
                  isTokenRequest(l) &&
                  l.status === 200 &&
                  l.tokenFingerprint === u.tokenFingerprint &&
                  !/ (status=|reset$|cut-body$)/.test(l.fault ?? '') &&
                  r.seq < l.seq &&
                  uses.some(
                    (x) =>
                      x.tokenFingerprint === u.tokenFingerprint &&
                      l.seq < x.seq &&
                      x.seq <= u.seq &&
                      sentAfter(l, x),
                  ),
              ),
          ),
        );
        const found = judgeClient(entries, 'a').find((f) => f.rule === 'token-reused-after-401');
        assert.deepEqual(
          [found?.count ?? 0, found?.exampleRequestIds ?? []],
          [reuses.length, reuses.slice(0, MAX_EXAMPLES).map((e) => e.requestId)],
        );
      }),
      { numRuns: 500 },
    );
  });
});
