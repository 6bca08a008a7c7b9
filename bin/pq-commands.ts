/**
 * pq's command table: the CLI's own commands (cli/commands) and the web console's
 * (console/command.ts), which is built on the CLI and so cannot be listed by it.
 */
import type { CommandEntry } from '../cli/command';
import { COMMANDS } from '../cli/commands';

export const PQ_COMMANDS: readonly CommandEntry[] = [
  ...COMMANDS,
  {
    name: 'console',
    summary: 'a web console on 127.0.0.1: overview, failure groups, records, the same actions',
    load: async () => (await import('../console/command')).consoleCommand,
  },
];
