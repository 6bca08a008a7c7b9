/**
 * What the port contract tests (test/integration/ports-contract-*.test.ts) share: the two worlds
 * every case runs on, and the items and inputs the cases are made of.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { quarantineObjectKeys } from '../../../lambdas/adapters/quarantine-writer';
import type { NewQuarantineRecord } from '../../../lambdas/core/quarantine-record';
import { defaultPolicy, type ErrorEvidence, type ExternalRecord } from '../../../lambdas/core/types';
import type { LedgerEntry, RestartInput, StartInput } from '../../../lambdas/ports/ledger';
import { motoWorld } from './ports-moto';
import { type Departure, memoryWorld, type PortsWorld } from './ports-worlds';

/** A case this implementation is known to break (with the reason in `departures`) must fail. */
export type Contract = (departure: Departure) => typeof it | typeof it.fails;

/**
 * Runs `cases` once on the in-memory world and once on the adapters over the local AWS, each
 * world started before its cases and stopped after them.
 */
export function onEveryPortsWorld(cases: (world: PortsWorld, contract: Contract) => void): void {
  describe.each([memoryWorld(), motoWorld()])('$name', (world) => {
    beforeAll(() => world.setUp());
    afterAll(() => world.tearDown());
    cases(world, (departure) => (world.departures[departure] === undefined ? it : it.fails));
  });
}

/** TTL of the crash items the trial marks (epoch seconds). */
export const EXPIRES_AT = 1_900_000_000;

export const T0 = new Date('2030-01-02T03:04:05.000Z');
export const at = (seconds: number) => new Date(T0.getTime() + seconds * 1000);
export const iso = (seconds: number) => at(seconds).toISOString();
export const EXPIRES = 1_900_000_000;
export const COOLDOWN = defaultPolicy().breakerCooldownSeconds;
export const EVIDENCE: ErrorEvidence = {
  class: 'transient',
  name: 'TimeoutError',
  message: 'upstream timed out – ü',
  stackHead: 'at call (/var/task/index.js:1:2)',
};
/** A keyless outside call that may have happened: it must not be repeated (rule 8). */
export const PENDING_SHIP: ExternalRecord = { name: 'ship', status: 'pending', at: iso(5) };

export function newKey(what: string): string {
  return `${what}-${randomUUID()}`;
}

export function startOf(key: string, attemptId: string, overrides: Partial<StartInput> = {}): StartInput {
  return {
    key,
    attemptId,
    envId: 'env-a',
    messageId: 'm-1',
    bodyDigest: 'digest-1',
    attemptLimit: 3,
    now: T0,
    expiresAt: EXPIRES,
    ...overrides,
  };
}

export function restartOf(
  key: string,
  previousAttemptId: string,
  attemptId: string,
  charge: number,
): RestartInput {
  const restart = { ...startOf(key, attemptId, { envId: 'env-b', now: at(60) }), previousAttemptId, charge };
  return { ...restart, crashedAlone: charge === 1 };
}

/** The item a first start writes; `overrides` for what a case changed since. */
export function begun(key: string, attemptId: string, overrides: Partial<LedgerEntry> = {}): LedgerEntry {
  return {
    key,
    state: 'in-flight',
    attempts: 1,
    charged: 0,
    transientFailures: 0,
    unknownFailures: 0,
    generation: 0,
    attemptId,
    envId: 'env-a',
    messageId: 'm-1',
    stage: 'started',
    bodyDigest: 'digest-1',
    firstAttemptAt: T0.toISOString(),
    lastAttemptAt: T0.toISOString(),
    ...overrides,
  };
}

/** An attempt that ended: no execution environment holds it any more. */
export function ended(entry: LedgerEntry, overrides: Partial<LedgerEntry>): LedgerEntry {
  const { envId: _gone, ...rest } = entry;
  return { ...rest, ...overrides };
}

/** What `call` rejected with; undefined if it resolved. */
export function rejectionOf(call: Promise<unknown>): Promise<unknown> {
  return call.then(
    () => undefined,
    (rejection: unknown) => rejection,
  );
}

/** Awaits a refusal and checks its exact class; returns it for the item it carries. */
export async function refusal<E extends Error>(
  call: Promise<unknown>,
  type: abstract new (...args: never[]) => E,
) {
  const error = await rejectionOf(call);
  expect(error).toBeInstanceOf(type);
  return error as E;
}

export function newRecord(id: string, overrides: Partial<NewQuarantineRecord> = {}): NewQuarantineRecord {
  return {
    id,
    status: 'open',
    reason: 'crash-limit',
    cause: 'unidentified',
    messageKey: `key-${id}`,
    messageId: 'm-1',
    generation: 0,
    attemptsStarted: 3,
    attemptsCharged: 3,
    stage: 'parsed',
    errorSignature: 'crash:parsed',
    firstAttemptAt: iso(0),
    lastAttemptAt: iso(300),
    createdAt: iso(360),
    sourceQueueArn: 'arn:aws:sqs:us-east-1:000000000000:source',
    ...quarantineObjectKeys(id),
    bodyBytes: 12,
    ...overrides,
  };
}
