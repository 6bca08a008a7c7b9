/**
 * The local AWS serialises writes to one DynamoDB item, as DynamoDB does: of several
 * conditional writers racing on one item exactly one wins, and every loser's ALL_OLD is the
 * winner's complete item. moto's own threaded server does not guarantee this (two winners and
 * keys-only ALL_OLD were seen), so tools/local-aws/moto-launcher.py adds the lock; these races pin it,
 * through plain SDK clients that send their requests as freely as the real services would.
 */
import {
  type AttributeValue,
  ConditionalCheckFailedException,
  CreateTableCommand,
  DynamoDBClient,
  PutItemCommand,
  UpdateItemCommand,
} from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { LOCAL_CREDENTIALS, type LocalAws, startLocalAws } from '../../tools/local-aws/moto';

const TABLE = 'races';
const RACES = 1_000;
/**
 * Fewer races on existing items: moto spends about 5 ms of CPU per request, so 1,000 more races
 * would double the file's time; a few hundred showed dozens of double wins before the lock.
 */
const BUMP_RACES = 300;
const WRITERS = 6;
/** Keys raced at once: enough to keep the server busy, few enough for a 2-core machine. */
const KEYS_AT_ONCE = 20;

type Item = Record<string, AttributeValue>;
type Outcome = { readonly writer: number } & (
  | { readonly won: true; readonly item: Item }
  | { readonly won: false; readonly allOld: Item | undefined }
);

let aws: LocalAws;
/** One client per writer, like separate consumers: their own connections, no shared queue. */
let writers: DynamoDBClient[];

beforeAll(async () => {
  aws = await startLocalAws();
  writers = Array.from(
    { length: WRITERS },
    () =>
      new DynamoDBClient({
        endpoint: aws.endpoint,
        region: aws.region,
        credentials: LOCAL_CREDENTIALS,
        // A retry would hide a server error and race again: every request is one attempt.
        maxAttempts: 1,
      }),
  );
  await writers[0].send(
    new CreateTableCommand({
      TableName: TABLE,
      KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' }],
      AttributeDefinitions: [{ AttributeName: 'pk', AttributeType: 'S' }],
      BillingMode: 'PAY_PER_REQUEST',
    }),
  );
});
afterAll(async () => {
  for (const client of writers ?? []) client.destroy();
  await aws?.stop();
});

/** Several attributes per write, so a half-applied write would show in a loser's ALL_OLD. */
function written(writer: number, version: number): Item {
  return {
    ':writer': { N: String(writer) },
    ':version': { N: String(version) },
    ':payload': { S: `written by ${writer} at version ${version} – ü`.repeat(4) },
    ':tags': { SS: [`w${writer}`, `v${version}`] },
  };
}
const SET_ALL = 'SET writer = :writer, version = :version, payload = :payload, tags = :tags';

/** The item a winning write leaves: its key plus everything it set. */
function itemOf(pk: string, values: Item): Item {
  return {
    pk: { S: pk },
    writer: values[':writer'],
    version: values[':version'],
    payload: values[':payload'],
    tags: values[':tags'],
  };
}

async function race(write: (client: DynamoDBClient, writer: number) => Promise<Item>): Promise<Outcome[]> {
  // All six requests leave in the same tick, each on its own client.
  return Promise.all(
    writers.map(async (client, writer): Promise<Outcome> => {
      try {
        return { writer, won: true, item: await write(client, writer) };
      } catch (error) {
        if (error instanceof ConditionalCheckFailedException)
          return { writer, won: false, allOld: error.Item };
        throw error;
      }
    }),
  );
}

/** Runs every key's race, KEYS_AT_ONCE keys at a time, and counts what went wrong. */
async function raceAll(keys: readonly string[], raceOne: (pk: string) => Promise<Outcome[]>) {
  const tally = { races: 0, noWinner: 0, severalWinners: 0, losers: 0, losersNotSeeingAWinnersItem: 0 };
  const examples: string[] = [];
  let next = 0;
  const worker = async () => {
    while (next < keys.length) {
      const pk = keys[next++];
      const outcomes = await raceOne(pk);
      tally.races++;
      const winnersItems = outcomes.flatMap((o) => (o.won ? [o.item] : []));
      if (winnersItems.length === 0) tally.noWinner++;
      if (winnersItems.length > 1) {
        tally.severalWinners++;
        if (examples.length < 5) examples.push(`${pk}: ${winnersItems.length} writers won`);
      }
      for (const loser of outcomes) {
        if (loser.won) continue;
        tally.losers++;
        // With several winners this still catches a half-built item (keys only, or half updated).
        if (!winnersItems.some((item) => sameItem(loser.allOld, item))) {
          tally.losersNotSeeingAWinnersItem++;
          if (examples.length < 5) examples.push(`${pk}: a loser saw ${JSON.stringify(loser.allOld)}`);
        }
      }
    }
  };
  await Promise.all(Array.from({ length: KEYS_AT_ONCE }, worker));
  return { tally, examples };
}

/** What every race must give: one winner, and losers that all saw its whole item. */
const flawless = (races: number) => ({
  tally: {
    races,
    noWinner: 0,
    severalWinners: 0,
    losers: races * (WRITERS - 1),
    losersNotSeeingAWinnersItem: 0,
  },
  examples: [],
});

function sameItem(a: Item | undefined, b: Item): boolean {
  if (!a) return false;
  const canonical = (item: Item) =>
    JSON.stringify(
      Object.keys(item)
        .sort()
        .map((name) => [name, item[name].SS ? { SS: [...item[name].SS].sort() } : item[name]]),
    );
  return canonical(a) === canonical(b);
}

const keysFor = (prefix: string, races: number) => Array.from({ length: races }, (_, i) => `${prefix}-${i}`);

it(`${RACES} six-way races to create an item: one winner each, every loser sees its whole item`, async () => {
  const { tally, examples } = await raceAll(keysFor('create', RACES), (pk) =>
    race(async (client, writer) => {
      const values = written(writer, 1);
      const result = await client.send(
        new UpdateItemCommand({
          TableName: TABLE,
          Key: { pk: { S: pk } },
          UpdateExpression: SET_ALL,
          ConditionExpression: 'attribute_not_exists(pk)',
          ExpressionAttributeValues: values,
          ReturnValues: 'ALL_NEW',
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        }),
      );
      expect(result.Attributes).toEqual(itemOf(pk, values));
      return itemOf(pk, values);
    }),
  );
  expect({ tally, examples }).toEqual(flawless(RACES));
}, 120_000);

it(`${BUMP_RACES} six-way races to bump an existing item's version: one winner each, losers see it whole`, async () => {
  const { tally, examples } = await raceAll(keysFor('bump', BUMP_RACES), async (pk) => {
    await writers[0].send(new PutItemCommand({ TableName: TABLE, Item: itemOf(pk, written(99, 1)) }));
    return race(async (client, writer) => {
      const values = written(writer, 2);
      await client.send(
        new UpdateItemCommand({
          TableName: TABLE,
          Key: { pk: { S: pk } },
          UpdateExpression: SET_ALL,
          ConditionExpression: 'version = :expected',
          ExpressionAttributeValues: { ...values, ':expected': { N: '1' } },
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        }),
      );
      return itemOf(pk, values);
    });
  });
  expect({ tally, examples }).toEqual(flawless(BUMP_RACES));
}, 120_000);
