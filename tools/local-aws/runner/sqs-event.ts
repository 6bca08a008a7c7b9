/**
 * Turns messages from ReceiveMessage into the event Lambda's SQS event source delivers, field by
 * field, so handler code cannot tell the runner from the real mapping.
 */
import type { Message, MessageAttributeValue } from '@aws-sdk/client-sqs';
import type { SQSEvent, SQSMessageAttribute, SQSRecord, SQSRecordAttributes } from 'aws-lambda';

export interface EventSource {
  readonly queueArn: string;
  readonly region: string;
}

/** The system attributes Lambda copies into a record, in Lambda's order; the rest are dropped. */
const STANDARD_ATTRIBUTES = [
  'ApproximateReceiveCount',
  'AWSTraceHeader',
  'SentTimestamp',
  'SequenceNumber',
  'MessageGroupId',
  'SenderId',
  'MessageDeduplicationId',
  'ApproximateFirstReceiveTimestamp',
] as const;

export function buildSqsEvent(messages: readonly Message[], source: EventSource): SQSEvent {
  return { Records: messages.map((message) => toSqsRecord(message, source)) };
}

export function toSqsRecord(message: Message, source: EventSource): SQSRecord {
  if (!message.MessageId || !message.ReceiptHandle) {
    throw new Error('ReceiveMessage returned a message without MessageId or ReceiptHandle');
  }
  return {
    messageId: message.MessageId,
    receiptHandle: message.ReceiptHandle,
    body: message.Body ?? '',
    attributes: toRecordAttributes(message.Attributes ?? {}),
    messageAttributes: toLambdaMessageAttributes(message.MessageAttributes ?? {}),
    md5OfBody: message.MD5OfBody ?? '',
    eventSource: 'aws:sqs',
    eventSourceARN: source.queueArn,
    awsRegion: source.region,
  };
}

function toRecordAttributes(system: Partial<Record<string, string>>): SQSRecordAttributes {
  const attributes: Record<string, string> = {};
  for (const name of STANDARD_ATTRIBUTES) {
    const value = system[name];
    if (value !== undefined) attributes[name] = value;
  }
  // ApproximateReceiveCount, SentTimestamp, SenderId and ApproximateFirstReceiveTimestamp come
  // with every message received with MessageSystemAttributeNames All; the cast states that fact.
  return attributes as unknown as SQSRecordAttributes;
}

/** SQS's PascalCase attribute values become Lambda's camelCase ones, binary as base64. */
function toLambdaMessageAttributes(
  attributes: Record<string, MessageAttributeValue>,
): Record<string, SQSMessageAttribute> {
  const converted: Record<string, SQSMessageAttribute> = {};
  for (const [name, value] of Object.entries(attributes)) {
    converted[name] = {
      ...(value.StringValue !== undefined ? { stringValue: value.StringValue } : {}),
      ...(value.BinaryValue !== undefined
        ? { binaryValue: Buffer.from(value.BinaryValue).toString('base64') }
        : {}),
      stringListValues: value.StringListValues ?? [],
      binaryListValues: (value.BinaryListValues ?? []).map((item) => Buffer.from(item).toString('base64')),
      dataType: value.DataType ?? 'String',
    };
  }
  return converted;
}
