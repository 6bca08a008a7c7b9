/**
 * Rule 9: which bucket a caught error falls in, after Stripe's: transient (throttling, 5xx, 429,
 * timeouts, connection resets), permanent (4xx validation, schema or deserialisation failure),
 * unknown (everything else). A user classifier may override any of it.
 */
import { OutcomeUnknownError, PermanentError, TransientError } from './errors';
import { causeChain, field, httpStatus, stringField } from './inspect';
import type { ErrorClass } from './types';

/** The user's override: `undefined` means "no opinion, use the default". */
export type UserClassifier = (error: unknown) => ErrorClass | undefined;

/**
 * Error names the AWS SDK v3 itself retries (@smithy/core service-error-classification), plus
 * the names of timeouts in Node (AbortSignal.timeout) and common HTTP clients.
 */
const TRANSIENT_NAMES = new Set([
  'BandwidthLimitExceeded',
  'EC2ThrottledException',
  'LimitExceededException',
  'PriorRequestNotComplete',
  'ProvisionedThroughputExceededException',
  'RequestLimitExceeded',
  'RequestThrottled',
  'RequestThrottledException',
  'SlowDown',
  'ThrottledException',
  'Throttling',
  'ThrottlingException',
  'TooManyRequestsException',
  'TransactionInProgressException',
  'TimeoutError',
  'RequestTimeout',
  'RequestTimeoutException',
  'ServiceUnavailable',
  'ServiceUnavailableException',
  'InternalServerError',
  'InternalFailure',
]);

/** Throttles the SDK list misses, such as SQS's KmsThrottled (HTTP 400). */
const THROTTLE_NAME = /throttl/i;

/** Node and undici network codes where the connection was never made. */
const NOT_CONNECTED_CODES = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'UND_ERR_CONNECT_TIMEOUT',
]);

/** Node and undici network codes where a request may have been sent and no answer came. */
const NO_ANSWER_CODES = new Set([
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ECONNABORTED',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
  'UND_ERR_SOCKET',
]);

/**
 * Credentials and permissions are the caller's, not the message's: 401/403 and these names are
 * treated as transient, so a broken role pauses the consumer (rule 7) instead of quarantining
 * every healthy message.
 */
const AUTH_NAMES = new Set([
  'AccessDenied',
  'AccessDeniedException',
  'UnrecognizedClientException',
  'ExpiredToken',
  'ExpiredTokenException',
  'InvalidClientTokenId',
]);

/** Validation and schema libraries (zod, joi, yup, ajv, valibot, superstruct) and deserialisers. */
const PERMANENT_NAME = /validation|schema|zod|deseriali[sz]|^valierror$|^structerror$/i;

const ERROR_CLASSES: ReadonlySet<unknown> = new Set(['transient', 'permanent', 'unknown', 'outcome-unknown']);

/** The default classifier. Follows `cause` when the outer error alone says nothing. */
export function classifyError(error: unknown): ErrorClass {
  for (const link of causeChain(error)) {
    const verdict = classifyOne(link);
    if (verdict !== 'unknown') {
      return verdict;
    }
  }
  return 'unknown';
}

/**
 * The user's classifier first, the default when it has no opinion. A classifier that throws or
 * answers something that is not a class must not turn a caught error into a crash: the default
 * applies.
 */
export function classifyWith(userClassifier: UserClassifier | undefined, error: unknown): ErrorClass {
  if (userClassifier !== undefined) {
    try {
      const verdict: unknown = userClassifier(error);
      if (ERROR_CLASSES.has(verdict)) {
        return verdict as ErrorClass;
      }
    } catch {
      // fall through to the default classification
    }
  }
  return classifyError(error);
}

/**
 * Rule 8: an error thrown by a declared external call. Unless the outside system provably did
 * not act (the connection never opened, or it refused with a status that means "not done"), the
 * outcome is unknown; without an idempotency key the call must then not be repeated. A response
 * that fails to parse is the typical trap: the system acted, the error looks permanent.
 */
export function classifyExternalFailure(
  error: unknown,
  errorClass: ErrorClass,
  idempotent: boolean,
): ErrorClass {
  if (idempotent || errorClass === 'outcome-unknown') {
    return errorClass;
  }
  return causeChain(error).some(provablyNotActed) ? errorClass : 'outcome-unknown';
}

function classifyOne(error: unknown): ErrorClass {
  if (error instanceof OutcomeUnknownError) return 'outcome-unknown';
  if (error instanceof TransientError) return 'transient';
  if (error instanceof PermanentError) return 'permanent';
  const name = stringField(error, 'name');
  const code = stringField(error, 'code');
  // The SDK marks errors modelled as retryable with `$retryable`; some throttles carry a 400.
  if (
    field(error, '$retryable') !== undefined ||
    TRANSIENT_NAMES.has(name) ||
    THROTTLE_NAME.test(name) ||
    AUTH_NAMES.has(name)
  ) {
    return 'transient';
  }
  if (NOT_CONNECTED_CODES.has(code) || NO_ANSWER_CODES.has(code)) {
    return 'transient';
  }
  const status = httpStatus(error);
  if (status !== undefined && status >= 400) {
    return isTransientStatus(status) ? 'transient' : 'permanent';
  }
  if (error instanceof SyntaxError || name === 'SyntaxError' || PERMANENT_NAME.test(name)) {
    return 'permanent';
  }
  return 'unknown';
}

function isTransientStatus(status: number): boolean {
  return status >= 500 || status === 408 || status === 429 || status === 401 || status === 403;
}

/**
 * A connection that never opened sent nothing. An error status is a refusal, except 500, 502
 * and 504, which may follow a partial write upstream.
 */
function provablyNotActed(error: unknown): boolean {
  if (NOT_CONNECTED_CODES.has(stringField(error, 'code'))) {
    return true;
  }
  const status = httpStatus(error);
  return status !== undefined && status >= 400 && status !== 500 && status !== 502 && status !== 504;
}
