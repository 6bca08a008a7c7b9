import {
  ConditionalCheckFailedException,
  InternalServerError,
  ProvisionedThroughputExceededException,
  RequestLimitExceeded,
  ResourceNotFoundException,
  ThrottlingException,
  TransactionInProgressException,
} from '@aws-sdk/client-dynamodb';
import { SFNServiceException, ValidationException } from '@aws-sdk/client-sfn';
import { InvalidMessageContents, KmsThrottled, RequestThrottled } from '@aws-sdk/client-sqs';
import { describe, expect, it } from 'vitest';
import { classifyError, classifyExternalFailure, classifyWith } from '../../lambdas/core/classify';
import { OutcomeUnknownError, PermanentError, TransientError } from '../../lambdas/core/errors';
import type { ErrorClass } from '../../lambdas/core/types';
import { hostileValue } from './fixtures';

/** What the SDK puts on every service error after its own retries gave up. */
const metadata = (httpStatusCode: number) => ({
  httpStatusCode,
  requestId: 'R3QV1EXAMPLE',
  attempts: 3,
  totalRetryDelay: 412,
});

/** A Node network error as `net`/`dns` raise it. */
const nodeError = (code: string, message: string) =>
  Object.assign(new Error(message), { code, errno: -1, syscall: 'connect' });

/** What undici's fetch throws: a bare TypeError wrapping the real network error. */
const fetchFailed = (cause: unknown) => new TypeError('fetch failed', { cause });

const httpClientError = (status: number) =>
  Object.assign(new Error(`Request failed with status code ${status}`), {
    name: 'AxiosError',
    code: 'ERR_BAD_RESPONSE',
    response: { status, data: {} },
  });

const jsonSyntaxError = (): unknown => {
  try {
    JSON.parse('{"order":');
  } catch (error) {
    return error;
  }
  throw new Error('JSON.parse accepted invalid JSON');
};

const cyclic: { name: string; cause?: unknown } = { name: 'Wrapper' };
cyclic.cause = { name: 'Inner', cause: cyclic };

describe('classifyError', () => {
  it.each<[string, unknown, ErrorClass]>([
    // Our own classes: the user's explicit word.
    ['TransientError', new TransientError('backend busy'), 'transient'],
    ['PermanentError', new PermanentError('amount is negative'), 'permanent'],
    ['OutcomeUnknownError', new OutcomeUnknownError('payment timed out after send'), 'outcome-unknown'],
    // AWS SDK v3 service errors, as the SDK builds them.
    [
      'DynamoDB ProvisionedThroughputExceededException (HTTP 400)',
      new ProvisionedThroughputExceededException({
        message: 'Throughput exceeded',
        $metadata: metadata(400),
      }),
      'transient',
    ],
    [
      'DynamoDB ThrottlingException',
      new ThrottlingException({ message: 'Rate exceeded', $metadata: metadata(400) }),
      'transient',
    ],
    [
      'DynamoDB RequestLimitExceeded',
      new RequestLimitExceeded({ message: 'Limit', $metadata: metadata(400) }),
      'transient',
    ],
    [
      'DynamoDB TransactionInProgressException',
      new TransactionInProgressException({ message: 'busy', $metadata: metadata(400) }),
      'transient',
    ],
    [
      'DynamoDB InternalServerError (HTTP 500)',
      new InternalServerError({ message: 'Internal', $metadata: metadata(500) }),
      'transient',
    ],
    [
      'DynamoDB ConditionalCheckFailedException (HTTP 400)',
      new ConditionalCheckFailedException({
        message: 'The conditional request failed',
        $metadata: metadata(400),
      }),
      'permanent',
    ],
    [
      'DynamoDB ResourceNotFoundException (HTTP 400)',
      new ResourceNotFoundException({ message: 'Requested resource not found', $metadata: metadata(400) }),
      'permanent',
    ],
    [
      'SQS RequestThrottled',
      new RequestThrottled({ message: 'slow down', $metadata: metadata(400) }),
      'transient',
    ],
    [
      'SQS KmsThrottled (HTTP 400)',
      new KmsThrottled({ message: 'kms', $metadata: metadata(400) }),
      'transient',
    ],
    [
      'SQS InvalidMessageContents',
      new InvalidMessageContents({ message: 'bad chars', $metadata: metadata(400) }),
      'permanent',
    ],
    [
      'Step Functions ValidationException',
      new ValidationException({ message: 'bad input', $metadata: metadata(400) }),
      'permanent',
    ],
    [
      'a service error with HTTP 503',
      new SFNServiceException({ name: 'ServiceUnavailable', $fault: 'server', $metadata: metadata(503) }),
      'transient',
    ],
    [
      'an unmodelled service error with HTTP 429',
      new SFNServiceException({ name: 'Unmodelled', $fault: 'client', $metadata: metadata(429) }),
      'transient',
    ],
    [
      'a service error marked $retryable despite HTTP 400',
      Object.assign(new SFNServiceException({ name: 'Odd', $fault: 'client', $metadata: metadata(400) }), {
        $retryable: { throttling: true },
      }),
      'transient',
    ],
    // Credentials belong to the caller, not the message: pause rather than quarantine everything.
    [
      'AccessDeniedException (HTTP 400)',
      new SFNServiceException({ name: 'AccessDeniedException', $fault: 'client', $metadata: metadata(400) }),
      'transient',
    ],
    ['HTTP 401', httpClientError(401), 'transient'],
    ['HTTP 403', httpClientError(403), 'transient'],
    // SDK transport errors (@smithy/node-http-handler).
    [
      'SDK socket timeout',
      Object.assign(new Error('the request socket timed out after 3000 ms'), { name: 'TimeoutError' }),
      'transient',
    ],
    [
      'SDK request timeout',
      Object.assign(new Error('requestTimeout exceeded'), { name: 'TimeoutError', code: 'ETIMEDOUT' }),
      'transient',
    ],
    [
      'AbortSignal.timeout()',
      new DOMException('The operation was aborted due to timeout', 'TimeoutError'),
      'transient',
    ],
    // Node and undici network errors.
    ['ECONNRESET', nodeError('ECONNRESET', 'read ECONNRESET'), 'transient'],
    ['ETIMEDOUT', nodeError('ETIMEDOUT', 'connect ETIMEDOUT 10.0.0.1:443'), 'transient'],
    ['ECONNREFUSED', nodeError('ECONNREFUSED', 'connect ECONNREFUSED 127.0.0.1:5432'), 'transient'],
    ['EPIPE', nodeError('EPIPE', 'write EPIPE'), 'transient'],
    ['EAI_AGAIN', nodeError('EAI_AGAIN', 'getaddrinfo EAI_AGAIN api.example.com'), 'transient'],
    ['ENOTFOUND', nodeError('ENOTFOUND', 'getaddrinfo ENOTFOUND api.example.com'), 'transient'],
    [
      'fetch failed (cause ECONNRESET)',
      fetchFailed(nodeError('ECONNRESET', 'other side closed')),
      'transient',
    ],
    [
      'fetch failed (cause undici headers timeout)',
      fetchFailed(
        Object.assign(new Error('Headers Timeout Error'), {
          name: 'HeadersTimeoutError',
          code: 'UND_ERR_HEADERS_TIMEOUT',
        }),
      ),
      'transient',
    ],
    // HTTP clients.
    ['axios 503', httpClientError(503), 'transient'],
    ['axios 429', httpClientError(429), 'transient'],
    ['axios 408', httpClientError(408), 'transient'],
    ['axios 422', httpClientError(422), 'permanent'],
    ['axios 404', httpClientError(404), 'permanent'],
    [
      'got HTTPError 502',
      Object.assign(new Error('Response code 502'), { name: 'HTTPError', response: { statusCode: 502 } }),
      'transient',
    ],
    ['a plain object with statusCode 504', { statusCode: 504, message: 'gateway' }, 'transient'],
    ['a plain object with status 400', { status: 400 }, 'permanent'],
    ['a redirect status says nothing', { status: 302 }, 'unknown'],
    ['a status that is not a number', { status: 'failed' }, 'unknown'],
    // Bad input: the message is at fault.
    ['JSON.parse SyntaxError', jsonSyntaxError(), 'permanent'],
    ['ZodError', Object.assign(new Error('[]'), { name: 'ZodError' }), 'permanent'],
    [
      'joi/yup/ajv ValidationError',
      Object.assign(new Error('"amount" is required'), { name: 'ValidationError' }),
      'permanent',
    ],
    ['valibot ValiError', Object.assign(new Error('Invalid type'), { name: 'ValiError' }), 'permanent'],
    [
      'superstruct StructError',
      Object.assign(new Error('Expected a string'), { name: 'StructError' }),
      'permanent',
    ],
    [
      'a DeserializationError',
      Object.assign(new Error('bad avro'), { name: 'DeserializationError' }),
      'permanent',
    ],
    [
      'a SchemaMismatchError',
      Object.assign(new Error('v2 payload'), { name: 'SchemaMismatchError' }),
      'permanent',
    ],
    // Everything else.
    [
      'a TypeError from a bug',
      new TypeError("Cannot read properties of undefined (reading 'id')"),
      'unknown',
    ],
    ['a RangeError', new RangeError('Invalid array length'), 'unknown'],
    ['an AbortError', new DOMException('This operation was aborted', 'AbortError'), 'unknown'],
    ['a thrown string', 'boom', 'unknown'],
    ['null', null, 'unknown'],
    ['undefined', undefined, 'unknown'],
    ['a number', 42, 'unknown'],
    ['an empty object', {}, 'unknown'],
    ['a cause cycle', cyclic, 'unknown'],
    // Cause chains: the outer class wins when it has an opinion.
    [
      'an unknown wrapper around a throttle',
      new Error('saving failed', {
        cause: new ThrottlingException({ message: 'Rate exceeded', $metadata: metadata(400) }),
      }),
      'transient',
    ],
    [
      'a PermanentError around a timeout',
      new PermanentError('rejected', { cause: nodeError('ETIMEDOUT', 'timeout') }),
      'permanent',
    ],
  ])('given %s, when classified, then it is %s', (_name, error, expected) => {
    // Act
    const actual = classifyError(error);

    // Assess
    expect(actual).toBe(expected);
  });

  it('given a thrown Proxy that throws on every read, when classified, then it is unknown', () => {
    expect(classifyError(hostileValue())).toBe('unknown');
  });
});

describe('classifyWith', () => {
  const throttle = new ThrottlingException({ message: 'Rate exceeded', $metadata: metadata(400) });

  it.each<[string, ((error: unknown) => ErrorClass | undefined) | undefined, ErrorClass]>([
    ['no user classifier', undefined, 'transient'],
    ['a classifier with an opinion', () => 'permanent', 'permanent'],
    ['a classifier without an opinion', () => undefined, 'transient'],
    [
      'a classifier that throws',
      () => {
        throw new Error('classifier bug');
      },
      'transient',
    ],
    ['a classifier answering a non-class', () => 'fatal' as ErrorClass, 'transient'],
  ])('given %s, when a throttle is classified, then it is %s', (_name, userClassifier, expected) => {
    expect(classifyWith(userClassifier, throttle)).toBe(expected);
  });
});

describe('classifyExternalFailure', () => {
  const timeout = Object.assign(new Error('socket timed out'), { name: 'TimeoutError' });

  it.each<[string, unknown, ErrorClass, boolean, ErrorClass]>([
    ['an idempotent call that timed out', timeout, 'transient', true, 'transient'],
    ['a call that timed out', timeout, 'transient', false, 'outcome-unknown'],
    ['a connection reset', nodeError('ECONNRESET', 'read ECONNRESET'), 'transient', false, 'outcome-unknown'],
    ['a refused connection', nodeError('ECONNREFUSED', 'refused'), 'transient', false, 'transient'],
    [
      'an unresolvable host',
      fetchFailed(nodeError('ENOTFOUND', 'getaddrinfo')),
      'transient',
      false,
      'transient',
    ],
    ['a 503 answer', httpClientError(503), 'transient', false, 'transient'],
    ['a 429 answer', httpClientError(429), 'transient', false, 'transient'],
    ['a 400 answer', httpClientError(400), 'permanent', false, 'permanent'],
    ['a 500 answer', httpClientError(500), 'transient', false, 'outcome-unknown'],
    ['a 502 answer', httpClientError(502), 'transient', false, 'outcome-unknown'],
    ['a 504 answer', httpClientError(504), 'transient', false, 'outcome-unknown'],
    ['a response that did not parse', jsonSyntaxError(), 'permanent', false, 'outcome-unknown'],
    ['an unknown error', new TypeError('x is undefined'), 'unknown', false, 'outcome-unknown'],
    [
      'an explicit OutcomeUnknownError',
      new OutcomeUnknownError('?'),
      'outcome-unknown',
      true,
      'outcome-unknown',
    ],
  ])('given %s, then it is %s', (_name, error, errorClass, idempotent, expected) => {
    expect(classifyExternalFailure(error, errorClass, idempotent)).toBe(expected);
  });
});
