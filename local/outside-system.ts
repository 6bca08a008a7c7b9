/**
 * "The outside system" of the rehearsal: a tiny HTTP server on 127.0.0.1 that the demo worker
 * calls. It counts requests per message id, which is how the rehearsal proves that an
 * outcome-unknown message was sent exactly once (rule 8, acceptance 4).
 *
 * The message id comes from the demo's MESSAGE_ID_HEADER, or else from a JSON body's `messageId`.
 * A request is counted when it ARRIVES, before any delay or error answer: the outside system has
 * acted even if its answer never makes it back, which is exactly the uncertainty rule 8 is about.
 *
 * How it answers can change while it runs: `setStatus(503)` plays a shared dependency going down
 * (rule 7) and `setStatus(200)` its recovery; `setHang(true)` one that takes requests and never
 * answers (each caller times out after sending: outcome unknown); `answerFor(id, ...)` changes the
 * answer for one message only (a slow answer for one message makes just that call's outcome unknown).
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { MESSAGE_ID_HEADER } from '../lambdas/demo/outside-system-client';

export interface OutsideSystemOptions {
  /**
   * Milliseconds to wait before answering (a slow dependency; longer than the caller's timeout
   * makes its outcome unknown).
   * @default 0
   */
  readonly delayMs?: number;
  /**
   * HTTP status of every answer (503 plays an outage).
   * @default 200
   */
  readonly status?: number;
  /**
   * Never answer: the request is counted and its connection left open until the caller gives up
   * or the server stops (a dependency hanging after it took the request).
   * @default false
   */
  readonly hang?: boolean;
}

/**
 * One request as it arrived: which message, when (epoch milliseconds), and the status it got
 * (undefined: it got no answer, the outside system hung).
 */
export interface OutsideRequest {
  readonly messageId: string;
  readonly at: number;
  readonly status?: number;
}

export interface OutsideSystem {
  /** http://127.0.0.1:PORT/ - give it to the demo worker as DEMO_OUTSIDE_SYSTEM_URL. */
  readonly url: string;
  /** Requests received so far, per message id. */
  counts(): Record<string, number>;
  /** Every request received so far, in order of arrival. */
  requests(): readonly OutsideRequest[];
  /** From now on every answer has this HTTP status (503: the dependency is down; 200: it is back). */
  setStatus(status: number): void;
  /** From now on every answer waits this long (0: at once). */
  setDelay(delayMs: number): void;
  /** From now on no request is answered (true), or they are again (false). */
  setHang(hang: boolean): void;
  /** From now on the answers for one message id follow these options; undefined goes back to the common ones. */
  answerFor(messageId: string, options: OutsideSystemOptions | undefined): void;
  stop(): Promise<void>;
}

interface AnswerState {
  readonly counts: Map<string, number>;
  readonly log: OutsideRequest[];
  common: OutsideSystemOptions;
  readonly perMessage: Map<string, OutsideSystemOptions>;
}

export async function startOutsideSystem(options: OutsideSystemOptions = {}): Promise<OutsideSystem> {
  const state: AnswerState = { counts: new Map(), log: [], common: { ...options }, perMessage: new Map() };
  const server = createServer((request, response) => {
    // A caller that hangs up mid-request is not the server's failure.
    answer(request, response, state).catch(() => response.destroy());
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/`,
    counts: () => Object.fromEntries(state.counts),
    requests: () => [...state.log],
    setStatus: (status) => {
      state.common = { ...state.common, status };
    },
    setDelay: (delayMs) => {
      state.common = { ...state.common, delayMs };
    },
    setHang: (hang) => {
      state.common = { ...state.common, hang };
    },
    answerFor: (messageId, answerOptions) => {
      if (answerOptions === undefined) state.perMessage.delete(messageId);
      else state.perMessage.set(messageId, answerOptions);
    },
    stop: () =>
      new Promise<void>((resolve) => {
        // Delayed answers must not hold the stop: their callers get a reset, as from a dead server.
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

async function answer(request: IncomingMessage, response: ServerResponse, state: AnswerState): Promise<void> {
  const messageId = messageIdOf(request.headers[MESSAGE_ID_HEADER], await readBody(request));
  if (messageId === undefined) {
    response.writeHead(400, { 'content-type': 'application/json' }).end('{"error":"no message id"}');
    return;
  }
  const count = (state.counts.get(messageId) ?? 0) + 1;
  state.counts.set(messageId, count);
  // The answer is decided when the request arrives: a switch flipped during a delay does not change it.
  const options = state.perMessage.get(messageId) ?? state.common;
  if (options.hang) {
    state.log.push({ messageId, at: Date.now() });
    return;
  }
  const status = options.status ?? 200;
  state.log.push({ messageId, at: Date.now(), status });
  if (options.delayMs) await new Promise((resolve) => setTimeout(resolve, options.delayMs));
  if (response.destroyed) return;
  response
    .writeHead(status, { 'content-type': 'application/json' })
    .end(JSON.stringify({ messageId, count }));
}

function messageIdOf(header: string | string[] | undefined, body: string): string | undefined {
  if (typeof header === 'string' && header !== '') return header;
  try {
    const parsed: unknown = JSON.parse(body);
    const id =
      typeof parsed === 'object' && parsed !== null
        ? (parsed as { messageId?: unknown }).messageId
        : undefined;
    return typeof id === 'string' && id !== '' ? id : undefined;
  } catch {
    return undefined;
  }
}

async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}
