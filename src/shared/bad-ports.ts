/**
 * The Fetch standard's "bad ports" (https://fetch.spec.whatwg.org/#port-blocking): ports that browsers and
 * fetch() (Node's included) refuse to send an HTTP request to, so that a web page cannot speak to an SMTP, IRC
 * or X11 server through them. Copied here because neither Node nor undici exports the list, and Larder must
 * know it before any request: `larder serve` warns when it binds one, so /docs and /console would never open.
 * Kept as the standard's table stands (port 0 was added in 2025; Node 20's fetch does not refuse it yet).
 */
export const BAD_PORTS: ReadonlySet<number> = new Set([
  0, 1, 7, 9, 11, 13, 15, 17, 19, 20, 21, 22, 23, 25, 37, 42, 43, 53, 69, 77, 79, 87, 95, 101, 102, 103, 104,
  109, 110, 111, 113, 115, 117, 119, 123, 135, 137, 139, 143, 161, 179, 389, 427, 465, 512, 513, 514, 515,
  526, 530, 531, 532, 540, 548, 554, 556, 563, 587, 601, 636, 989, 990, 993, 995, 1719, 1720, 1723, 2049,
  3659, 4045, 4190, 5060, 5061, 6000, 6566, 6665, 6666, 6667, 6668, 6669, 6679, 6697, 10080,
]);

/** What fetch's cause says, alone, when it refuses a bad port. */
export const FETCH_BAD_PORT = 'bad port';

/**
 * Why fetch refused `url` (its cause said "bad port"), in words a person can act on: which port, that it is the
 * client refusing (nothing was sent), and what to do.
 */
export const badPortReason = (url: string): string =>
  `port ${new URL(url).port} is one fetch refuses to connect to (a "bad port" of the Fetch standard, blocked by browsers too; nothing was sent): serve it on another port`;
