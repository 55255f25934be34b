#!/usr/bin/env bash
# The load generator alone against saved pages: autocannon 8 as the bench runs it (50 connections, 4 s), with its
# body decoding as shipped (patch=0) and turned off as bench/load.ts now does (patch=1). Run from the repository
# root with the bench store built (npm run bench once) and nothing else running.
set -euo pipefail
token=abcdefghijklmnop1234
LARDER_ADMIN_TOKEN=$token node bin/larder.js serve --db bench/.cache/larder-v4_s1.db --no-demo --port 18231 &
larder=$!
until curl -sf -o /dev/null http://127.0.0.1:18231/healthz; do sleep 0.2; done
ih='{"adjustmentType":["RECEIVE","WASTED"],"updatedDateRange":{"startDate":"2025-04-01","endDate":"2025-04-30"}}'
for loc in loc-linden-table loc-bench-unicode; do
  curl -s -X POST -H "authorization: Bearer $token" -H 'content-type: application/json' -d "$ih" \
    "http://127.0.0.1:18231/_larder/locations/$loc/inventoryHistory/search" -o "/tmp/ih-$loc.json"
  curl -s -X POST -H "authorization: Bearer $token" -H 'content-type: application/json' -d '{"includeArchived":true}' \
    "http://127.0.0.1:18231/_larder/locations/$loc/purchaseOrders/search" -o "/tmp/po-$loc.json"
done
kill $larder
node bench/results/2026-12-01-load-generator-bodies/raw-pages.mjs 18232 /ih=/tmp/ih-loc-linden-table.json \
  /ih-u=/tmp/ih-loc-bench-unicode.json /po=/tmp/po-loc-linden-table.json /po-u=/tmp/po-loc-bench-unicode.json &
raw=$!
sleep 0.5
cd bench
for round in 1 2; do for patch in 0 1; do for path in ih ih-u po po-u; do
  node -e "
    if ($patch) require('autocannon/lib/pipelinedRequestsQueue.js').prototype.addBody = () => {};
    require('autocannon')({ url: 'http://127.0.0.1:18232/$path', connections: 50, duration: 4, method: 'POST',
      body: '{}', headers: { 'content-type': 'application/json' } },
      (e, r) => console.log('round $round patch=$patch /$path', Math.round(r.requests.average), 'req/s, p50',
        r.latency.p50, 'ms, failures', r.non2xx + r.errors + r.timeouts));"
done; done; done
kill $raw
