/**
 * The demo worker's one call to "the outside system": an HTTP POST carrying the message id, whose
 * failures become the error classes the consumer understands (rule 9), so that a plain outage
 * reads as transient and a lost answer reads as outcome unknown (rule 8).
 */
import { OutcomeUnknownError, PermanentError, TransientError } from '../core/errors';

/** Carries the message id, so the outside system can count requests per message. */
export const MESSAGE_ID_HEADER = 'x-message-id';

export interface OutsideSystemRequest {
  readonly messageId: string;
  readonly attempt: number;
}

/** Errors that prove the request never left this process: safe to retry. */
const NOT_SENT_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN']);

export async function callOutsideSystem(
  url: string,
  request: OutsideSystemRequest,
  timeoutMs: number,
): Promise<void> {
  let response: Response;
  try {
    response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', [MESSAGE_ID_HEADER]: request.messageId },
      body: JSON.stringify(request),
      signal: AbortSignal.timeout(timeoutMs),
    });
  } catch (error) {
    const code = ((error as Error).cause as { code?: string } | undefined)?.code;
    if (code !== undefined && NOT_SENT_CODES.has(code)) {
      throw new TransientError(`outside system unreachable (${code})`, { cause: error });
    }
    // A timeout or a reset after sending: the outside system may have acted.
    throw new OutcomeUnknownError(`outside system gave no answer: ${(error as Error).message}`, {
      cause: error,
    });
  }
  await response.arrayBuffer(); // drain, so the connection is free again
  if (response.ok) return;
  // The status travels with the error: the consumer reads it to tell a refusal (503, 429, 4xx: the
  // outside system did not act) from an answer that leaves the outcome unknown (500, 502, 504).
  const { status } = response;
  if (status === 429 || status >= 500) {
    throw withStatus(new TransientError(`outside system answered HTTP ${status}`), status);
  }
  throw withStatus(new PermanentError(`outside system refused the request: HTTP ${status}`), status);
}

function withStatus<E extends Error>(error: E, status: number): E & { readonly status: number } {
  return Object.assign(error, { status });
}
