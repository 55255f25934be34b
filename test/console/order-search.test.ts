import assert from 'node:assert/strict';
import { test } from 'node:test';
import { EMPTY_FILTER, type OrderSearch, readSearch, searchParams } from '../../console/src/order-search.js';

/** As the route holds them: empty values left out, as href() does. */
const route = (search: OrderSearch) => {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(searchParams(search)))
    if (value !== undefined && value !== '') params.set(name, value);
  return new URLSearchParams(params.toString());
};

test('a search and its page go into the route and come back the same', () => {
  const search: OrderSearch = {
    filter: {
      statuses: ['RECEIVED', 'ORDERED'],
      includeArchived: true,
      startDate: '2026-01-01',
      endDate: '2026-02-01',
      pageSize: 100,
    },
    token: 'MTc4MDc2MTY4MjY3NDpi.FfFpHNf8-K81B8gbC_Xc91Q',
    previous: ['', 'MTc4MDc2MTY4MjY3NDpa.Ab-c_d'],
  };
  assert.deepEqual(readSearch(route(search)), search);
  // No search at all: the first page, nothing in the route but the location.
  const none: OrderSearch = { filter: EMPTY_FILTER, token: '', previous: [] };
  assert.equal(route(none).toString(), '');
  assert.deepEqual(readSearch(new URLSearchParams()), none);
  // The second page: only the first, empty token before it.
  const second: OrderSearch = { filter: EMPTY_FILTER, token: 'abc', previous: [''] };
  assert.equal(route(second).toString(), 'page=abc');
  assert.deepEqual(readSearch(route(second)), second);
});

test('what no search can hold is left out: an unknown status, a page size not offered, pages before a first one', () => {
  const search = readSearch(new URLSearchParams('status=RECEIVED,NOPE,&size=7&prev=abc'));
  // prev without page: the first page, whatever came before it.
  assert.deepEqual(search, { filter: { ...EMPTY_FILTER, statuses: ['RECEIVED'] }, token: '', previous: [] });
});
