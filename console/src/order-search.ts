import { PURCHASE_ORDER_STATUSES } from '../../src/records/enums.js';

/** The purchase-order search as the form states it. */
export interface Filter {
  statuses: string[];
  includeArchived: boolean;
  startDate: string;
  endDate: string;
  pageSize: number;
}

/** A search and the page of it shown: `token` is that page's, `previous` the tokens of the pages before it. */
export interface OrderSearch {
  filter: Filter;
  token: string;
  previous: string[];
}

export const PAGE_SIZES = [10, 25, 100, 500];

export const EMPTY_FILTER: Filter = {
  statuses: [],
  includeArchived: false,
  startDate: '',
  endDate: '',
  pageSize: 25,
};

/**
 * The search in the route (`#/orders?location=…&status=RECEIVED&page=…`), so Back from another view, a reload and
 * a bookmark show the same page of the same search. Page tokens hold no comma, so `prev` lists them with one; the
 * first page's token, the empty one, is left out of it.
 */
export const searchParams = ({
  filter,
  token,
  previous,
}: OrderSearch): Record<string, string | undefined> => ({
  status: filter.statuses.join(','),
  archived: filter.includeArchived ? '1' : undefined,
  from: filter.startDate,
  to: filter.endDate,
  size: filter.pageSize === EMPTY_FILTER.pageSize ? undefined : String(filter.pageSize),
  page: token,
  prev: previous.slice(1).join(','),
});

/** The search a route names; what no search can hold (an unknown status, a page size not offered) is left out. */
export const readSearch = (params: URLSearchParams): OrderSearch => {
  const list = (name: string) => (params.get(name) ?? '').split(',').filter((value) => value !== '');
  const size = Number(params.get('size'));
  const token = params.get('page') ?? '';
  return {
    filter: {
      statuses: list('status').filter((status) =>
        (PURCHASE_ORDER_STATUSES as readonly string[]).includes(status),
      ),
      includeArchived: params.get('archived') === '1',
      startDate: params.get('from') ?? '',
      endDate: params.get('to') ?? '',
      pageSize: PAGE_SIZES.includes(size) ? size : EMPTY_FILTER.pageSize,
    },
    token,
    previous: token === '' ? [] : ['', ...list('prev')],
  };
};
