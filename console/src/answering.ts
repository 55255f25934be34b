/**
 * Whether Larder answered the console's latest call: false once a call got no answer at all (the server stopped,
 * the network gone), true again at the next answer of any kind, an error too. The header's clock badge stops on
 * it: a clock run on locally while nobody can read it would claim a time the console does not know.
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

const sawAnswer = (answered: boolean) => {
  if (answered === answering) return;
  answering = answered;
  for (const listener of listeners) listener(answered);
};

/** `sent` (a fetch), noting whether Larder answered it: any response counts, an error status too. */
export const noting = async <T>(sent: Promise<T>): Promise<T> => {
  try {
    const answer = await sent;
    sawAnswer(true);
    return answer;
  } catch (failure) {
    sawAnswer(false);
    throw failure;
  }
};
