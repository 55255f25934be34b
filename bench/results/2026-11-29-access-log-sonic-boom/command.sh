#!/bin/bash
# Alternating base/head runs of the access log's cost (base: a worktree of 0a9140b, npm ci'd; head: this checkout).
OUT=bench/results/2026-11-29-access-log-sonic-boom
for i in 1 2 3; do
  for side in base head; do
    if [ $side = base ]; then dir=../wt-base; rev=0a9140b; else dir=.; rev=$(git rev-parse --short HEAD); fi
    tmp=$(mktemp -d)
    (cd $dir && npm run bench -- --cost --rounds 3 --paths access-log --dataset demo --backend sqlite --scale 0.1 --out $tmp)
    cp $tmp/cost-sqlite.md $OUT/$side-$rev-$i.md; cp $tmp/cost-sqlite.json $OUT/$side-$rev-$i.json
  done
done
