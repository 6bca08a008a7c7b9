/**
 * The console's replay of a whole group, paced as `pq replay --group G --rate N` paces it (issue
 * 22, defect 11): the console's app in process, over the CLI harness's pipeline in moto, on a
 * clock that moves only when the replay waits on it.
 */
import { describe, expect, it } from 'vitest';
import type { CommandContext } from '../../cli/command';
import { resolveDeployment } from '../../cli/deployment';
import { CSRF_FIELD, cookieName, newKeys } from '../../console/security';
import { consoleApp, type Listening } from '../../console/server';
import { errorSignature } from '../../lambdas/core/evidence';
import { groupId } from '../../lambdas/core/operator';
import { type CliHarness, PARSE_ERROR, withCliHarness } from '../integration/support/cli-harness';

let cli: CliHarness;

withCliHarness((started) => {
  cli = started;
});

const AT: Listening = { address: '127.18.5.201', port: 4321 };
const ORIGIN = `http://${AT.address}:${AT.port}`;
/** Every record the harness quarantines fails with PARSE_ERROR: one group. */
const GROUP = groupId(errorSignature(PARSE_ERROR));

/** The console over the harness's pipeline, found as `pq console` finds it, on the given clock. */
async function consoleOn(clock: Pick<CommandContext, 'now' | 'sleep'>) {
  const [, endpoint = '', , region = ''] = cli.targetArgs.slice(2);
  const deployment = await resolveDeployment({ functionName: cli.functionName, endpoint, region });
  const keys = newKeys();
  const app = consoleApp({ deployment, ...clock }, keys, AT);
  const headers = { host: `${AT.address}:${AT.port}`, cookie: `${cookieName(AT.port)}=${keys.secret}` };
  return {
    confirmation: (path: string) => app.request(`${ORIGIN}${path}`, { headers }),
    post: (path: string, fields: Record<string, string>) =>
      app.request(`${ORIGIN}${path}`, {
        method: 'POST',
        headers: { ...headers, origin: ORIGIN, 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ [CSRF_FIELD]: keys.csrf, ...fields }).toString(),
      }),
  };
}

async function quarantinedWithCause(count: number): Promise<string[]> {
  const ids = [];
  for (let member = 0; member < count; member++) ids.push((await cli.quarantine()).id);
  await cli.run('cause', '--group', GROUP, 'schema v3 deployed');
  return ids;
}

describe('the console replays a group at a rate (issue 22, defect 11)', () => {
  it('given a group replayed at 2 a second, then its sends start 500 ms apart on the clock, and every member is replayed', async () => {
    // Prepare: a clock that moves only when the replay waits on it.
    const ids = await quarantinedWithCause(3);
    let now = Date.parse('2030-06-01T00:00:00Z');
    const waits: number[] = [];
    const pqConsole = await consoleOn({
      now: () => new Date(now),
      sleep: async (ms) => {
        waits.push(ms);
        now += ms;
      },
    });

    // Act
    const confirmation = await pqConsole.confirmation(`/act/replay-group?group=${GROUP}`);
    const replayed = await pqConsole.post('/act/replay-group', { group: GROUP, rate: '2' });

    // Assess
    expect(replayed.status).toBe(200);
    expect(waits).toStrictEqual([500, 500]);
    expect(await confirmation.text()).toMatch(/<input id="rate" name="rate"/);
    const sent = [];
    for (let read = await cli.receive(); read.length > 0; read = await cli.receive()) sent.push(...read);
    expect(
      sent.map((message) => message.MessageAttributes?.['pq-replay-of']?.StringValue).sort(),
    ).toStrictEqual(ids.sort());
  });

  it('given a rate that is not a positive number, then refused with the reason pq gives, and nothing is sent', async () => {
    await quarantinedWithCause(1);
    const pqConsole = await consoleOn({ now: () => new Date(), sleep: async () => {} });

    const response = await pqConsole.post('/act/replay-group', { group: GROUP, rate: 'fast' });

    expect(response.status).toBe(409);
    expect(await response.text()).toContain(
      '--rate takes messages per second, a number above 0 (given fast)',
    );
    expect(await cli.receive()).toStrictEqual([]);
  });
});
