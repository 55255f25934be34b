import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import type { FaultEffect, FaultRule } from '../../src/sandbox/fault-schemas.js';
import {
  createFaultEngine,
  describeEffect,
  type FaultRequest,
  parseFaultHeader,
  validFaultRule,
  validFaultRules,
} from '../../src/sandbox/faults.js';
import type { LarderError } from '../../src/shared/errors.js';

const request = (path = '/v1/x'): FaultRequest => ({
  method: 'POST',
  path,
  operation: undefined,
  location: undefined,
  clientId: undefined,
  bearer: true,
  pageToken: false,
});

/** Which of `n` requests a rule set faults, and with what (label, drawn delay). */
const run = (rules: FaultRule[], n: number) => {
  const engine = createFaultEngine(rules);
  return Array.from({ length: n }, () => {
    const fault = engine.decide(request());
    return fault === undefined ? null : `${fault.label}/${fault.delayMs ?? ''}`;
  });
};

const effects: fc.Arbitrary<FaultEffect> = fc.oneof(
  fc.constantFrom(500, 502, 503, 504, 429).map((status) => ({ type: 'status' as const, status })),
  fc.integer({ min: 0, max: 5000 }).map((ms) => ({ type: 'latency' as const, ms })),
  fc.tuple(fc.integer({ min: 0, max: 1000 }), fc.integer({ min: 0, max: 1000 })).map(([a, b]) => ({
    type: 'latency' as const,
    distribution: 'uniform' as const,
    minMs: Math.min(a, b),
    maxMs: Math.max(a, b),
  })),
  fc.constant({ type: 'reset' as const }),
  fc.constant({ type: 'cutBody' as const }),
);

test('property: with seeds, any rules give the same faults on every run', () => {
  fc.assert(
    fc.property(
      fc.array(
        fc.record({
          seed: fc.nat({ max: 2 ** 32 - 1 }),
          when: fc.oneof(
            // A probability of 0 never fires and is refused (exclusiveMinimum).
            fc
              .double({ min: 0, minExcluded: true, max: 1, noNaN: true })
              .map((probability) => ({ probability })),
            fc.integer({ min: 1, max: 5 }).map((every) => ({ every })),
            fc.integer({ min: 1, max: 5 }).map((next) => ({ next })),
          ),
          effect: effects,
        }),
        { minLength: 1, maxLength: 4 },
      ),
      (rules) => {
        const valid = validFaultRules({ rules });
        assert.deepEqual(run(valid, 60), run(valid, 60));
      },
    ),
  );
});

test('property: every N fires on exactly the multiples of N; next N on exactly the first N', () => {
  fc.assert(
    fc.property(fc.integer({ min: 1, max: 20 }), fc.integer({ min: 1, max: 80 }), (n, total) => {
      const every = run([{ when: { every: n }, effect: { type: 'reset' } }], total);
      assert.deepEqual(
        every.map((fault) => fault !== null),
        Array.from({ length: total }, (_, i) => (i + 1) % n === 0),
      );
      const next = run([{ when: { next: n }, effect: { type: 'reset' } }], total);
      assert.deepEqual(
        next.map((fault) => fault !== null),
        Array.from({ length: total }, (_, i) => i < n),
      );
    }),
  );
});

test('property: a probability rule fires at about its rate', () => {
  fc.assert(
    fc.property(fc.nat(), fc.constantFrom(0.1, 0.5, 0.9), (seed, probability) => {
      const fired = run([{ seed, when: { probability }, effect: { type: 'reset' } }], 2000).filter(
        (fault) => fault !== null,
      ).length;
      assert.ok(Math.abs(fired / 2000 - probability) < 0.06, `${fired} of 2000 at ${probability}`);
    }),
    { numRuns: 20 },
  );
});

test('the header spells every effect the journal names', () => {
  for (const value of [
    'status=503',
    'status=429;retry-after=5',
    'latency=800ms',
    'reset',
    'cut-body',
    'slow-body=100',
    'invalid-token',
    'bad-page-token',
  ]) {
    const fault = parseFaultHeader(value);
    assert.equal(fault.label, `header ${value}`);
    assert.equal(describeEffect(fault.effect, fault.delayMs), value);
  }
});

test('replacing the rules starts their counters again', () => {
  const engine = createFaultEngine([{ when: { next: 1 }, effect: { type: 'reset' } }]);
  assert.ok(engine.decide(request()) !== undefined);
  assert.equal(engine.decide(request()), undefined);
  engine.replace(engine.list().rules.map(({ matched: _m, applied: _a, id: _id, ...rule }) => rule));
  assert.ok(engine.decide(request()) !== undefined);
  assert.equal(engine.active, true);
  engine.replace([]);
  assert.equal(engine.active, false);
});

test('ids stay unique: a default id never repeats one given, so any rule can be removed alone', () => {
  const engine = createFaultEngine([
    { id: 'rule-2', effect: { type: 'reset' } },
    { effect: { type: 'reset' } },
    { effect: { type: 'reset' } },
  ]);
  const ids = () => engine.list().rules.map((rule) => rule.id);
  assert.deepEqual(ids(), ['rule-2', 'rule-3', 'rule-4']);
  engine.add({ effect: { type: 'cutBody' } });
  assert.deepEqual(ids(), ['rule-2', 'rule-3', 'rule-4', 'rule-5']);
  engine.remove('rule-3');
  engine.add({ effect: { type: 'cutBody' } });
  assert.deepEqual(ids(), ['rule-2', 'rule-4', 'rule-5', 'rule-6']);
  // Property: whatever ids are given, those by default never repeat any.
  fc.assert(
    fc.property(
      fc.array(fc.option(fc.constantFrom('rule-1', 'rule-2', 'rule-3', 'x'), { nil: undefined }), {
        maxLength: 8,
      }),
      (given) => {
        const unique = [...new Set(given.filter((id) => id !== undefined))];
        const rules = [
          ...unique.map((id) => ({ id })),
          ...given.filter((id) => id === undefined).map(() => ({})),
        ];
        const listed = createFaultEngine(
          rules.map((rule) => ({ ...rule, effect: { type: 'reset' as const } })),
        )
          .list()
          .rules.map((rule) => rule.id);
        assert.equal(new Set(listed).size, listed.length);
      },
    ),
  );
});

test('a rule whose when gives more or fewer than one of probability, next, every is told which it takes', () => {
  for (const [when, message] of [
    [{ next: 1, every: 2 }, 'takes only one of probability, next, every'],
    [{}, 'needs one of probability, next, every'],
  ] as const) {
    assert.throws(
      () => validFaultRule({ when, effect: { type: 'reset' } }),
      (error: LarderError) => {
        assert.equal(error.problems[0]?.fieldName, 'when');
        assert.equal(error.problems[0]?.message, message);
        return true;
      },
    );
  }
});
