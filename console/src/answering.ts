/**
 * Whether Larder answered the console's latest call: false once a call got no answer from Larder (the server
 * stopped, the network gone, or something in front of it answering instead: a proxy's HTML 502 while Larder is
 * down behind it, a login page), true again at Larder's next answer, an error too. The header's clock badge stops
 * on it: a clock run on locally while nobody can read it would claim a time the console does not know.
 */
let answering = true;
const listeners = new Set<(answering: boolean) => void>();

export const isAnswering = () => answering;

/** Told once per change, not once per call. */
export const onAnswering = (listener: (answering: boolean) => void) => {
  listeners.add(listener);
  return () => {
    listeners.delete(listener);
  };
};

/** Notes whether Larder answered a call; listeners hear only of a change. */
export const noteAnswer = (answered: boolean) => {
  if (answered === answering) return;
  answering = answered;
  for (const listener of listeners) listener(answered);
};
