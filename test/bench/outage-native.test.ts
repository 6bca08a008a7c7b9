/**
 * The bench's outage section, native side, over a tiny run against moto (issue 10): a plain
 * consumer with SQS's native redrive (maxReceiveCount 3) through an outage longer than its three
 * receives. It checks what the section counts (the DLQ, the outside system's requests), never a
 * time: the drain is a timing and belongs to `npm run bench`.
 */
import { Runtime } from 'aws-cdk-lib/aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { outageOnNative } from '../../bench/outage/outage';
import { playOutage } from '../../bench/pipeline/dependency-outage';
import { NATIVE_MAX_RECEIVE_COUNT, startNativeConsumer } from '../../bench/pipeline/native-consumer';
import { createClients } from '../../lambdas/adapters/clients';
import { startOutsideSystem } from '../../local/outside-system';
import { LOCAL_CREDENTIALS, type LocalAws, startLocalAws } from '../../tools/local-aws/moto';

let aws: LocalAws;

beforeAll(async () => {
  aws = await startLocalAws();
});
afterAll(async () => {
  await aws?.stop();
});

describe('npm run bench, outage on the native redrive', () => {
  it('given an outage longer than three receives, then every message is dead-lettered after one request per receive', async () => {
    // Prepare
    const clients = createClients({
      region: aws.region,
      endpoint: aws.endpoint,
      credentials: LOCAL_CREDENTIALS,
    });
    const outside = await startOutsideSystem();
    const visibilityTimeoutSeconds = 3;
    const native = await startNativeConsumer({
      clients,
      region: aws.region,
      name: 'bench-native-test',
      outsideSystemUrl: outside.url,
      timeoutSeconds: 2,
      visibilityTimeoutSeconds,
      batchSize: 10,
      maxConcurrency: 2,
      memoryMiB: 128,
      runtime: Runtime.NODEJS_LATEST.name,
    });
    const messages = 2;
    const outage = playOutage([outside], NATIVE_MAX_RECEIVE_COUNT * visibilityTimeoutSeconds + 2);

    try {
      // Act
      const outcome = await outageOnNative(native, outside, outage, messages, 30_000);

      // Assess
      expect(outcome).toStrictEqual({
        deadLettered: messages,
        externalRequests: NATIVE_MAX_RECEIVE_COUNT * messages,
        drainSeconds: expect.any(Number),
      });
      expect(Object.values(outside.counts())).toStrictEqual([3, 3]);
    } finally {
      outage.cancel();
      await native.stop();
      await outside.stop();
    }
  });
});
