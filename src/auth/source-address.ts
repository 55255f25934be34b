import { BlockList, isIP } from 'node:net';
import { getConnInfo } from '@hono/node-server/conninfo';
import type { Context } from 'hono';

/**
 * Which proxies in front of Larder are trusted to append the client's address to X-Forwarded-For: none
 * (false), the nearest `hops` proxies, or the proxies whose addresses lie in `networks` (CIDR). Never "any":
 * a blanket yes lets every client claim any address and dodge the per-address throttle.
 */
export type TrustProxy = false | { hops: number } | { networks: readonly string[] };

export const MAX_TRUSTED_HOPS = 10;

/** `--trust-proxy`: a hop count (1–10) or a comma-separated list of addresses and CIDR networks; else an error. */
export const parseTrustProxy = (raw: string | undefined): TrustProxy | string => {
  if (raw === undefined || raw === '' || raw === '0') return false;
  if (/^\d+$/.test(raw)) {
    const hops = Number(raw);
    return hops <= MAX_TRUSTED_HOPS
      ? { hops }
      : `--trust-proxy takes at most ${MAX_TRUSTED_HOPS} hops, not ${raw}.`;
  }
  const networks = raw.split(',').map((part) => part.trim());
  for (const network of networks) {
    if (networkRule(network) === undefined)
      return `--trust-proxy takes a hop count or addresses and CIDR networks (10.0.0.0/8,::1), not ${network}.`;
  }
  return { networks };
};

const networkRule = (
  network: string,
): { address: string; prefix: number; family: 'ipv4' | 'ipv6' } | undefined => {
  const [address = '', prefixText, extra] = network.split('/');
  const version = isIP(address);
  if (version === 0 || extra !== undefined) return undefined;
  const max = version === 4 ? 32 : 128;
  const prefix = prefixText === undefined ? max : /^\d+$/.test(prefixText) ? Number(prefixText) : -1;
  if (!(prefix >= 0 && prefix <= max)) return undefined;
  return { address, prefix, family: version === 4 ? 'ipv4' : 'ipv6' };
};

/** An IPv4 peer on a dual-stack socket shows as ::ffff:a.b.c.d; networks are written as plain IPv4. */
const plain = (address: string): string => address.replace(/^::ffff:(?=\d+\.\d+\.\d+\.\d+$)/i, '');

/** Whether an address lies in one of `networks` (an IPv4-mapped IPv6 peer matches its IPv4 network). */
export const trustedBy = (networks: readonly string[]): ((address: string) => boolean) => {
  const list = new BlockList();
  for (const network of networks) {
    const rule = networkRule(network);
    if (rule !== undefined) list.addSubnet(rule.address, rule.prefix, rule.family);
  }
  return (address) => {
    const bare = plain(address);
    const version = isIP(bare);
    return version !== 0 && list.check(bare, version === 4 ? 'ipv4' : 'ipv6');
  };
};

/**
 * The client's address given the socket peer and X-Forwarded-For: walking from the nearest hop back, skip the
 * trusted proxies; the first address not vouched for is the client. With hops, the entry that many hops back.
 */
export const clientAddress = (
  peer: string | undefined,
  forwardedFor: string | undefined,
  trust: TrustProxy,
  isTrusted: (address: string) => boolean = () => false,
): string | undefined => {
  if (trust === false || peer === undefined) return peer;
  const chain = [
    ...(forwardedFor ?? '')
      .split(',')
      .map((entry) => entry.trim())
      .filter((entry) => entry !== ''),
    peer,
  ];
  if ('hops' in trust) return chain[Math.max(0, chain.length - 1 - trust.hops)];
  let index = chain.length - 1;
  while (index > 0 && isTrusted(chain[index]!)) index--;
  return chain[index];
};

/** The per-address source of a request (for throttling and logs) under a trust-proxy setting. */
export const createSourceAddress = (trust: TrustProxy): ((c: Context) => string | undefined) => {
  const isTrusted = trust !== false && 'networks' in trust ? trustedBy(trust.networks) : () => false;
  return (c) => {
    let peer: string | undefined;
    try {
      peer = getConnInfo(c).remote.address;
    } catch {
      // Not served through @hono/node-server (in-process tests): no socket, no address.
      return undefined;
    }
    return clientAddress(peer, c.req.header('x-forwarded-for'), trust, isTrusted);
  };
};
