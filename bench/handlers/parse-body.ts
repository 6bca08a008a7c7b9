/**
 * The user's work in every timed handler of the bench: parse the body, nothing else, so what is
 * timed is the wrapper around it (poison-quarantine, Powertools, or none).
 */
import type { Processor } from '../../lambdas/consumer/types';

export const process: Processor = async (message) => {
  JSON.parse(message.body);
};
