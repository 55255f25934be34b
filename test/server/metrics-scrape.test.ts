import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createClientCredentials } from '../../src/auth/clients.js';
import { type MetricsEndpoint, startMetricsServer } from '../../src/server/metrics-server.js';
import { type RunningServer, startServer } from '../../src/server/server.js';
import { systemClock } from '../../src/shared/clock.js';
import { silentLogger } from '../../src/shared/logger.js';
import { createMetrics } from '../../src/shared/metrics.js';
import { purchaseOrderFixture } from '../helpers/fixtures.js';
import { type BackendInstance, backends, describeBackend } from '../storage/backends.js';

const ADMIN = 'admin-token-for-metrics-0123';
const LOGIN = '/authentication/v1/authentication/login';

for (const backend of await backends()) {
  describeBackend(`GET /metrics, scraped (${backend.name})`, backend, () => {
    let db: BackendInstance;
    let server: RunningServer;
    let endpoint: MetricsEndpoint;
    before(async () => {
      db = await backend.create();
      const metrics = createMetrics();
      server = await startServer({
        store: db.store,
        clock: systemClock,
        logger: silentLogger,
        config: {
          host: '127.0.0.1',
          port: 0,
          tokenTtlSeconds: 3600,
          trustProxy: false,
          adminToken: ADMIN,
          metrics,
        },
      });
      endpoint = await startMetricsServer('127.0.0.1', 0, {
        contentType: metrics.registry.contentType,
        render: () => metrics.registry.metrics(),
      });
    });
    after(async () => {
      await endpoint.stop();
      await server.stop();
      await db.destroy();
    });

    const scrape = async () => {
      const response = await fetch(endpoint.url);
      assert.equal(response.status, 200);
      assert.match(response.headers.get('content-type') ?? '', /^text\/plain/);
      return response.text();
    };
    const login = (clientId: string, clientSecret: string) =>
      fetch(`${server.url}${LOGIN}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ clientId, clientSecret, userAccessType: 'PLATFORM_MACHINE_CLIENT' }),
      });

    test('the public port does not serve /metrics; the metrics listener serves nothing else', async () => {
      assert.equal((await fetch(`${server.url}/metrics`)).status, 404);
      assert.equal((await fetch(endpoint.url.replace('/metrics', '/healthz'))).status, 404);
    });

    test('requests, tokens, refusals, store query time, imports and event-loop delay', async () => {
      await db.store.locations.upsert({ id: 'loc-m' });
      const client = await createClientCredentials(db.store, { name: 'm', locations: ['loc-m'] });
      assert.equal((await login(client.clientId, client.clientSecret)).status, 200);
      for (let i = 0; i < 11; i++) await login(client.clientId, 'wrong');
      // The token endpoint's refusal speaks RFC 6749 (temporarily_unavailable); the metric counts Larder's code.
      const token = await fetch(`${server.url}/authentication/v1/authentication/customer/oauth/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({
          grant_type: 'client_credentials',
          client_id: client.clientId,
          client_secret: 'wrong',
        }).toString(),
      });
      assert.equal(token.status, 429);
      const imported = await fetch(`${server.url}/_larder/locations/loc-m/purchaseOrders`, {
        method: 'POST',
        headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
        body: JSON.stringify([purchaseOrderFixture(1, { modifiedAt: Date.UTC(2025, 0, 1) })]),
      });
      assert.equal(imported.status, 200, await imported.text());
      const text = await scrape();
      assert.match(
        text,
        /larder_http_requests_total\{operation="authenticationLoginPost",method="POST",status="200"\} 1/,
      );
      assert.match(
        text,
        /larder_http_request_duration_seconds_bucket\{le="\+Inf",operation="authenticationLoginPost",status="401"\} 10/,
      );
      assert.match(text, /larder_tokens_issued_total\{operation="authenticationLoginPost"\} 1/);
      assert.match(text, /larder_token_failures_total\{operation="authenticationLoginPost",status="429"\} 1/);
      assert.match(text, /larder_throttle_refusals_total\{code="42901"\} 2/);
      assert.doesNotMatch(text, /larder_throttle_refusals_total\{code="temporarily_unavailable"\}/);
      assert.match(
        text,
        /larder_store_query_duration_seconds_count\{role="auth",method="getClient",outcome="ok"\} \d+/,
      );
      assert.match(text, /larder_imports_total\{outcome="committed"\} 1/);
      assert.match(text, /larder_imported_records_total\{kind="purchaseOrders"\} 1/);
      assert.match(text, /nodejs_eventloop_lag_p99_seconds \d/);
      if (backend.name === 'postgres') assert.match(text, /larder_store_pool_connections [1-9]/);
      else assert.doesNotMatch(text, /larder_store_pool_connections \d/);
    });
  });
}
