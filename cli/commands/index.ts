/**
 * Every command, in the order the overall help lists them, with its one-line summary. A command's
 * module is loaded only when it runs or shows its help: `pq --version` and `pq --help` load none,
 * and `pq status --help` only status's (the AWS SDK comes with the deployment, on first use).
 * `pq console` is the console's (console/command.ts), added by bin/pq-commands.ts.
 */
import type { CommandEntry } from '../command';

export const COMMANDS: readonly CommandEntry[] = [
  {
    name: 'status',
    summary: 'is it consuming? queue depth, mapping, breaker, isolation, freeze, open records',
    load: async () => (await import('./status')).status,
  },
  {
    name: 'list',
    summary: 'quarantined records; --group shows failure groups (same error, same place)',
    load: async () => (await import('./list')).list,
  },
  {
    name: 'find',
    summary: 'the records of one message, by its key or its SQS message id',
    load: async () => (await import('./find')).find,
  },
  {
    name: 'show',
    summary: 'one record: evidence, attempt history, audit, the exact body',
    load: async () => (await import('./show')).show,
  },
  {
    name: 'cause',
    summary: 'record what went wrong (required before any replay)',
    load: async () => (await import('./cause')).cause,
  },
  {
    name: 'replay',
    summary: 'send a record (or a failure group) back to the source queue, fresh attempt budget',
    load: async () => (await import('./replay')).replay,
  },
  {
    name: 'discard',
    summary: 'close open records without replaying them (content kept)',
    load: async () => (await import('./discard')).discard,
  },
  {
    name: 'verify',
    summary: 'answer an "outcome unknown" record after checking the outside system',
    load: async () => (await import('./verify')).verify,
  },
  {
    name: 'backstop',
    summary: 'what SQS moved to the backstop queue: list, show, take into quarantine, redrive',
    load: async () => (await import('./backstop')).backstop,
  },
  {
    name: 'freeze',
    summary: 'refuse every replay until unfrozen',
    load: async () => (await import('./freeze')).freeze,
  },
  {
    name: 'unfreeze',
    summary: 'allow replays again',
    load: async () => (await import('./freeze')).unfreeze,
  },
  {
    name: 'hold',
    summary: 'keep a paused consumer paused',
    load: async () => (await import('./breaker')).hold,
  },
  {
    name: 'resume',
    summary: 'let a paused consumer consume again',
    load: async () => (await import('./breaker')).resume,
  },
  {
    name: 'reset-breaker',
    summary: 'repair a breaker item that cannot be read (status: Breaker UNREADABLE)',
    load: async () => (await import('./reset-breaker')).resetBreaker,
  },
  {
    name: 'recount',
    summary: 'count the open records again: repairs the count the consumer stops at (rule 11a)',
    load: async () => (await import('./recount')).recount,
  },
];
