// The user's processing module, typed from the package's runtime entry.
import { PermanentError, type Processor } from 'poison-quarantine/runtime';

export const process: Processor = async (message, ctx) => {
  if (!message.body.startsWith('{')) throw new PermanentError('orders-worker: the body is not JSON');
  await ctx.stage('parsed');
};
