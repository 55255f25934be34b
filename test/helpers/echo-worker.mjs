import { answerRequests } from '../../dist/shared/worker-channel.js';

// Doubles numbers; breaks on -1 (worker-channel tests).
answerRequests((n) => {
  if (n === -1) throw new Error('worker broke');
  return { answer: n * 2 };
});
