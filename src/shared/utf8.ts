import { isUtf8 } from 'node:buffer';
import { TextDecoder } from 'node:util';

/**
 * A decoder that refuses bytes that are not UTF-8 rather than turning them into U+FFFD, which would then be
 * stored or matched as if it had been sent. A byte-order mark is kept: callers that take one skip it themselves.
 */
export const strictUtf8 = (): TextDecoder => new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/**
 * Where `bytes` stop being UTF-8: the first byte of the sequence at fault; `bytes.length` when all of it is (a
 * character cut off at the end included: more may follow). Bisects with fresh decoders, O(n log n): call it only
 * to place a failure already seen.
 */
export const utf8FaultAt = (bytes: Uint8Array): number => {
  let valid = 0;
  let invalid = bytes.length + 1;
  while (invalid - valid > 1) {
    const middle = (valid + invalid) >>> 1;
    try {
      strictUtf8().decode(bytes.subarray(0, middle), { stream: true });
      valid = middle;
    } catch {
      invalid = middle;
    }
  }
  if (valid === bytes.length) return valid;
  try {
    strictUtf8().decode(bytes.subarray(0, valid));
    return valid;
  } catch {
    // The byte at `valid` does not finish the character begun before it: point at that character's first byte.
    let at = valid - 1;
    while (at > 0 && ((bytes[at] ?? 0) & 0xc0) === 0x80) at--;
    return at;
  }
};

/**
 * `bytes` as text, or the byte at which it stops being UTF-8 and its value (undefined past the end). Every request
 * body passes here: Node's native isUtf8 check and Buffer decoding, no decoder made per call.
 */
export const decodeUtf8 = (bytes: Buffer): { text: string } | { badAt: number; byte: number | undefined } => {
  if (isUtf8(bytes)) return { text: bytes.toString('utf8') };
  const badAt = utf8FaultAt(bytes);
  return { badAt, byte: bytes[badAt] };
};
