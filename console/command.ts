/**
 * `pq console`: the same inspection and actions in a browser, on loopback only. The command
 * returns once the console listens, with the URL to open; the server keeps the process running
 * until it is stopped (Ctrl-C). It lives here, not in cli/: the console is built on the CLI's
 * core, never the other way round; bin/pq-commands.ts puts it in pq's table.
 */
import { positionals } from '../cli/arguments';
import type { Command, CommandContext } from '../cli/command';
import { UsageError } from '../cli/errors';
import { startConsole } from './server';

export const consoleCommand: Command = {
  name: 'console',
  options: { port: { type: 'string' } },
  help: `pq console - operate the pipeline from a browser

Usage: pq console [--port N]

Starts a web console on a loopback address of its own (127.x.y.z: this machine only) and prints
its URL; Ctrl-C stops it.
  --port N   the port to listen on (default: a free one)

Pages: the overview (mapping, queue, breaker, isolation trial, replay freeze, what needs a person
now, counts and a chart of quarantines by reason), failure groups, the records (filtered, paged),
and each record (timeline, evidence, audit trail, the body as JSON, text or hex, and download).
Actions: cause, replay (one, or a group after a dry run), verify, discard, freeze/unfreeze,
hold/resume; each is confirmed first and runs exactly as the pq command of the same name (the
same rules, refusals and audit, with your AWS identity).

The URL carries a secret made for this start: share it with nobody. The browser exchanges it for
a cookie on the first visit; requests without it are refused, and every form carries a token of
its own against cross-site requests. The address is this start's own so that the cookie reaches
no other local server the browser visits (browsers send a host's cookies to all of its ports).`,
  async run(context: CommandContext) {
    positionals(context.args, []);
    const port = portOf(context.args.string('port'));
    const deployment = await context.deployment();
    const running = await startConsole({ deployment, now: context.now, sleep: context.sleep, port });
    return {
      json: { url: running.url, ownAddress: running.ownAddress },
      text: `pq console for ${deployment.functionName}: open ${running.url}\n(the URL carries this start's secret; Ctrl-C stops the console)\n${
        running.ownAddress ? '' : SHARED_WARNING
      }`,
    };
  },
};

const SHARED_WARNING = `Warning: this system answers no loopback address but 127.0.0.1, so the browser also sends
the console's cookie to every other server on 127.0.0.1 it visits, which could act as you: visit
no other local page while the console runs.\n`;

function portOf(text: string | undefined): number {
  if (text === undefined) return 0;
  const port = Number(text);
  if (!/^\d+$/.test(text) || port > 65_535) {
    throw new UsageError(`--port takes a number from 0 to 65535 (given ${text})`);
  }
  return port;
}
