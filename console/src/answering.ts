/**
 * Whether Larder answered the console's latest call: false once a call got no answer from Larder (the server
 * stopped, the network gone, or something in front of it answering instead: a proxy's HTML 502 while Larder is
 * down behind it, a login page), true again at Larder's next answer, an error too, unless Larder has proved
 * unsteady (STEADY_MS). The header's clock badge stops on it: a clock run on locally while nobody can read it
 * would claim a time the console does not know.
 */
let answering = true;
const listeners = new Set<(answering: boolean) => void>();

/**
 * How long Larder must answer every call, once it has proved unsteady, before it counts as answering again. In a
 * partial outage (a proxy failing one call in two, one of several workers gone) the header flipped at each call,
 * and each flip read the clock again at once, making more calls to flip on. A first miss still says so at once,
 * and the first answer after it is believed at once: only a miss soon after that recovery marks Larder unsteady.
 */
export const STEADY_MS = 5000;
let lastMiss = Number.NEGATIVE_INFINITY;
let lastRecovery = Number.NEGATIVE_INFINITY;
let unsteady = false;

export const isAnswering = () => answering;

/** Told once per change, not once per call. */
export const onAnswering = (listener: (answering: boolean) => void) => {
  listeners.add(listener);
  return () => {
    listeners.delete(listener);
  };
};

const tell = (answered: boolean) => {
  answering = answered;
  for (const listener of listeners) listener(answered);
};

/** Notes whether Larder answered a call; listeners hear only of a change. */
export const noteAnswer = (answered: boolean) => {
  const now = Date.now();
  if (!answered) {
    if (answering && now - lastRecovery < STEADY_MS) unsteady = true;
    lastMiss = now;
    if (answering) tell(false);
    return;
  }
  if (answering || (unsteady && now - lastMiss < STEADY_MS)) return;
  unsteady = false;
  lastRecovery = now;
  tell(true);
};
