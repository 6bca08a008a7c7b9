// A process that starts the embedded local AWS, prints its endpoint and waits to be killed:
// test/integration/moto-process-hygiene.test.ts kills it as a hook timeout or Ctrl-C would.
import { startLocalAws } from '../../../tools/local-aws/moto';

startLocalAws({ readyTimeoutMs: 120_000 }).then(
  (aws) => {
    process.stdout.write(`${aws.endpoint}\n`);
    setInterval(() => undefined, 60_000);
  },
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
