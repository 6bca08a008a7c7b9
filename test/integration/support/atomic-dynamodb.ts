/**
 * moto's DynamoDB is not atomic under concurrent requests: its threaded server checks an
 * UpdateItem's condition, then creates an empty item and applies the update in place, with no
 * lock. Concurrent conditional writes can therefore both succeed, and a loser's ALL_OLD can be
 * the half-built item (keys only). Measured here: 6 concurrent tripBreaker calls had two winners
 * in about 5% of 200 runs, and 4 concurrent starts of one key returned a keys-only ALL_OLD.
 *
 * DynamoDB itself serializes the writes to one item. This client gives the tests that
 * guarantee: callers still race (their promises interleave freely), but their requests reach
 * moto one at a time, so each condition sees the committed result of the previous write, as on
 * AWS. Race tests use it; what they check is our conditions and our reading of ALL_OLD.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { LOCAL_CREDENTIALS, type LocalAws } from '../../../local/moto';

export function atomicDynamoDb(aws: LocalAws): DynamoDBClient {
  const client = new DynamoDBClient({
    endpoint: aws.endpoint,
    region: aws.region,
    credentials: LOCAL_CREDENTIALS,
  });
  let tail: Promise<unknown> = Promise.resolve();
  client.middlewareStack.add(
    (next) => (args) => {
      const turn = tail.then(() => next(args));
      tail = turn.catch(() => undefined);
      return turn;
    },
    { step: 'initialize', name: 'oneRequestAtATime' },
  );
  return client;
}
