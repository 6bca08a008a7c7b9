/**
 * A scenario's message: a label, and either what the demo worker should do with it (sent as the
 * JSON body `{"id", "behaviour", "times", "idempotencyKey"}`, lambdas/demo/worker.ts) or a raw
 * body sent exactly as given, as text or as base64 for what a JSON string cannot hold plainly.
 * SQS carries text only (XML characters, UTF-8 on the wire), so a body it would refuse or alter
 * is refused here, before any pipeline starts.
 */
import { z } from 'zod';
import { DEFAULTS } from '../../contract/defaults';
import { BEHAVIOURS } from '../../lambdas/demo/worker';
import { oneOf, show, strictObject, text, wholeNumber } from './scenario-fields';

/** The characters SQS allows in a message body (SendMessage's documentation). */
const SQS_TEXT = /^[\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]*$/u;

function bodyProblem(body: string): string | undefined {
  if (!SQS_TEXT.test(body))
    return 'holds a character SQS refuses in a body (control characters but tab, LF, CR)';
  const bytes = Buffer.byteLength(body);
  if (bytes > DEFAULTS.maxMessageSizeBytes)
    return `is ${bytes} bytes: more than the queue's ${DEFAULTS.maxMessageSizeBytes}`;
  return undefined;
}

/** The text a base64 body stands for; undefined when its bytes are not UTF-8. */
function decodeBase64(value: string): string | undefined {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(Buffer.from(value, 'base64'));
  } catch {
    return undefined;
  }
}

const rawText = z
  .string({ error: (issue) => `must be a string (given ${show(issue.input)})` })
  .superRefine((body, context) => {
    const problem = bodyProblem(body);
    if (problem) context.addIssue({ code: 'custom', message: problem });
  });

const rawBase64 = z.base64({ error: (issue) => `must be base64 (given ${show(issue.input)})` }).superRefine(
  (value, context) => {
    const body = decodeBase64(value);
    const problem =
      body === undefined
        ? 'must decode to UTF-8: an SQS body is text, and other bytes would not arrive as they are'
        : bodyProblem(body);
    if (problem) context.addIssue({ code: 'custom', message: problem });
  },
  { when: (payload) => payload.issues.length === 0 },
);

/** What a demo message may say; a raw body says it (or nothing) in its own bytes. */
const DEMO_FIELDS = ['behaviour', 'times', 'idempotencyKey'] as const;
const BODY_FIELDS = ['behaviour', 'body', 'bodyBase64'] as const;
/** The behaviours whose one call to the outside system takes the message's key. */
const KEYED_BEHAVIOURS: readonly string[] = ['succeed-with-external', 'crash-after-external'];

export const scenarioMessage = strictObject({
  id: text(64).meta({
    description:
      'The message\'s label in the report and in the other fields; for a demo message also the body\'s "id", ' +
      'which the outside system counts requests by.',
  }),
  behaviour: oneOf(BEHAVIOURS)
    .optional()
    .meta({ description: 'What the demo worker does with it (lambdas/demo/worker.ts).' }),
  times: wholeNumber(0, 100)
    .optional()
    .meta({ description: 'Misbehave on attempts 1..times only (default: on every attempt).' }),
  idempotencyKey: text(256)
    .optional()
    .meta({
      description:
        "The idempotency key of the demo worker's call to the outside system (ctx.external), for " +
        'succeed-with-external and crash-after-external: a keyed call may be repeated after a crash (rule 8), ' +
        'a keyless one never.',
    }),
  body: rawText.optional().meta({ description: 'A raw body, sent exactly as given (instead of behaviour).' }),
  bodyBase64: rawBase64
    .optional()
    .meta({ description: 'A raw body as base64 of its UTF-8 bytes, sent decoded (instead of behaviour).' }),
  partition: wholeNumber(0, 9)
    .optional()
    .meta({
      description:
        'With --source kafka: the partition of the topic the record is produced to (default 0); the topic ' +
        'has as many partitions as the highest one named, plus one. Ignored for a queue.',
    }),
}).superRefine(
  (message, context) => {
    const kinds = BODY_FIELDS.filter((field) => message[field] !== undefined);
    if (kinds.length !== 1) {
      context.addIssue({
        code: 'custom',
        message:
          kinds.length === 0
            ? `needs one of ${BODY_FIELDS.join(', ')}`
            : `gives ${kinds.join(' and ')}: give one (a raw body says itself what the worker does)`,
      });
    }
    if (message.behaviour !== undefined) {
      if (message.idempotencyKey !== undefined && !KEYED_BEHAVIOURS.includes(message.behaviour)) {
        context.addIssue({
          code: 'custom',
          path: ['idempotencyKey'],
          message: `goes with ${KEYED_BEHAVIOURS.join(' or ')}: ${message.behaviour} makes no call it would key`,
        });
      }
      return;
    }
    for (const field of DEMO_FIELDS.filter((name) => message[name] !== undefined && name !== 'behaviour')) {
      context.addIssue({
        code: 'custom',
        path: [field],
        message: 'goes with behaviour, not with a raw body',
      });
    }
  },
  { when: () => true },
);

export type ScenarioMessage = z.output<typeof scenarioMessage>;

/** The body the message is sent with: the raw one, or the demo worker's JSON order. */
export function messageBody(message: ScenarioMessage): string {
  if (message.body !== undefined) return message.body;
  if (message.bodyBase64 !== undefined) return decodeBase64(message.bodyBase64) as string;
  const { id, behaviour, times, idempotencyKey } = message;
  return JSON.stringify({ id, behaviour, times, idempotencyKey });
}
