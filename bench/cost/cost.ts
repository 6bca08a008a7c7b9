/** Dollars per million messages on one path, from its measured AWS calls and the list prices. */
import type { PathCalls } from '../calls/measure-calls';
import { PRICES } from './prices';

export function costPerMillionUsd({ calls, units }: PathCalls): number {
  const perMessage =
    units.write * PRICES.dynamodbWriteRequestUnit +
    units.read * PRICES.dynamodbReadRequestUnit +
    calls.s3 * PRICES.s3PutRequest +
    calls.sqs * PRICES.sqsRequest;
  // Cents are the useful precision for a million messages.
  return Math.round(perMessage * 1e6 * 100) / 100;
}
