/**
 * The consumer's entry point for a local run with injected faults: the deployed handler's wiring
 * (lambdas/handlers/consumer.ts) with the ports wrapped by the shared fault plan whose directory
 * the runner names in FAULT_PLAN_ENV. It lives here, bundled by fault-run.ts, so that the deployed
 * handler holds no fault code at all.
 */
import type { SQSBatchResponse, SQSRecord } from 'aws-lambda';
import * as processor from 'pq-user-processor';
import { ENV } from '../../contract/env';
import { MESSAGE_KEY_ATTRIBUTE } from '../../contract/message-attributes';
import { createConsumer, type SqsHandler } from '../../lambdas/consumer/create-consumer';
import { installSourceMappedStacks } from '../../lambdas/handlers/source-mapped-stacks';
import { withFaults } from '../../sim/faults/inject';
import { FAULT_PLAN_ENV, SharedFaultPlan } from './shared-plan';

installSourceMappedStacks();
const planDir = process.env[FAULT_PLAN_ENV];
if (!planDir) throw new Error(`${FAULT_PLAN_ENV} is not set: the runner names the fault plan's directory`);
const plan = new SharedFaultPlan(planDir);
const endpoint = process.env[ENV.endpoint];

const consume = createConsumer({
  processor,
  env: process.env,
  clientOptions: endpoint ? { endpoint } : {},
  wrapPorts: (ports) => withFaults(ports, plan),
});

export const handler: SqsHandler = (event, context) => {
  for (const record of event.Records) {
    const label = labelOf(record);
    if (label === undefined) continue;
    // Every key the consumer may give the record: its messageId, the body's "id" (a rehearsal's
    // `messageKey: 'id'`), or on a replay the original's key. Labels and message ids are unique
    // in a rehearsal, so none of them can name another message.
    const replayKey = record.messageAttributes[MESSAGE_KEY_ATTRIBUTE]?.stringValue;
    for (const key of [record.messageId, label, replayKey]) if (key) plan.learnLabel(key, label);
  }
  // An SQS event gets an SQS answer (a Kafka one is answered only to a Kafka event).
  return consume(event, context) as Promise<SQSBatchResponse>;
};

/** A rehearsal message's label is its body's "id" (lambdas/demo/worker.ts). */
function labelOf(record: SQSRecord): string | undefined {
  try {
    const body: unknown = JSON.parse(record.body);
    const id = typeof body === 'object' && body !== null ? (body as { id?: unknown }).id : undefined;
    return typeof id === 'string' ? id : undefined;
  } catch {
    return undefined;
  }
}
