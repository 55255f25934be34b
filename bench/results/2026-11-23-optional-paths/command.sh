#!/usr/bin/env bash
# The runs behind the README table "What each optional path costs": alternating on/off runs; each writes its
# table to /tmp/var/<name>-<round>/latest.md (copied here as <name>-<round>.md).
cd "$(dirname "$0")/../../.."
run() { name=$1; shift; round=$1; shift; out=/tmp/var/$name-$round; rm -rf $out; env "$@" npm run bench -- --only get-po,search-first --backend sqlite --no-prism --out $out > $out.log 2>&1; echo "$name $round: $(grep -E '\| (GET purchase order by id|First search page[^|]*) \| Larder sqlite' $out/latest.md | awk -F'|' '{print $2 "=" $7}' | tr '\n' ' ')"; }
mkdir -p /tmp/var
for round in 1 2 3; do
  run off $round X=1
  run journal $round LARDER_BENCH_SANDBOX=1
  run ratelimit $round LARDER_BENCH_RATE_LIMIT=platform-high
done
run accesslog 1 LARDER_BENCH_ACCESS_LOG=1
run metrics 1 LARDER_BENCH_METRICS=1
