/**
 * What `npm run local:deploy -- --keep` prints: shell words that a shell reads back exactly, the
 * commands with the local AWS's settings in them, and the consumer's log lines made short.
 */
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { consumerLogLine, deathLine, shellQuote, tryOutCommands } from '../../local/try-out';

describe('shell words', () => {
  it('given values with quotes, spaces, JSON and $, then sh reads each back exactly', () => {
    // Prepare
    const values = ['plain-name_1.2', '{"id":"hello"}', "it's", 'a b', '$HOME `x` \\n', '', '/work/my dir'];
    // Act
    const echoed = values.map((value) =>
      execFileSync('sh', ['-c', `printf %s ${shellQuote(value)}`], { encoding: 'utf8' }),
    );
    // Assess
    expect(echoed).toStrictEqual(values);
  });
});

describe('the commands to try', () => {
  it('given the local AWS, then they go to the project, set region, endpoint and credentials, and name the consumer', () => {
    // Act
    const commands = tryOutCommands({
      projectDir: '/work/my project',
      endpoint: 'http://127.0.0.1:4567',
      region: 'us-east-1',
      credentials: { accessKeyId: 'testing', secretAccessKey: 'testing' },
      functionName: 'Demo-Consumer1',
    });
    // Assess
    expect(commands).toStrictEqual([
      "cd '/work/my project'",
      'export AWS_ACCESS_KEY_ID=testing AWS_SECRET_ACCESS_KEY=testing AWS_REGION=us-east-1 AWS_ENDPOINT_URL=http://127.0.0.1:4567',
      `npm run -s local:send -- --function Demo-Consumer1 '{"id":"hello"}'`,
      `npm run -s local:send -- --function Demo-Consumer1 '{"id":"broken","behaviour":"throw-permanent"}'`,
      'npm run -s pq -- status --function Demo-Consumer1',
      'npm run -s pq -- list --function Demo-Consumer1',
    ]);
  });
});

describe("the consumer's log lines", () => {
  it('given a Powertools line, then time, level, message and the event fields, without the routine ones', () => {
    // Prepare
    const line = JSON.stringify({
      level: 'WARN',
      message: 'message quarantined',
      timestamp: '2026-12-01T16:46:31.698Z',
      service: 'poison-quarantine',
      sampling_rate: 0,
      cold_start: false,
      function_request_id: 'r-1',
      event: 'quarantined',
      reason: 'permanent-error',
    });
    // Act
    const shown = consumerLogLine({ envId: 'env-1', stream: 'stdout', line });
    // Assess
    expect(shown).toBe(
      'env-1 16:46:31 WARN message quarantined {"event":"quarantined","reason":"permanent-error"}',
    );
  });

  it('given a cold start, then it is said', () => {
    const line = JSON.stringify({ level: 'INFO', message: 'record processed', cold_start: true });
    expect(consumerLogLine({ envId: 'env-2', stream: 'stdout', line })).toBe(
      'env-2 INFO record processed {"cold_start":true}',
    );
  });

  it('given an EMF metrics line, then the metrics with their values and the dimensions that tell them apart', () => {
    // Prepare
    const line = JSON.stringify({
      _aws: {
        Timestamp: Date.parse('2026-12-01T16:46:31.890Z'),
        CloudWatchMetrics: [
          {
            Namespace: 'PoisonQuarantine',
            Dimensions: [['service', 'Queue', 'Reason']],
            Metrics: [{ Name: 'Quarantines', Unit: 'Count' }],
          },
        ],
      },
      service: 'poison-quarantine',
      Queue: 'arn:aws:sqs:us-east-1:123456789012:Source',
      Reason: 'permanent-error',
      Quarantines: 1,
    });
    // Act
    const shown = consumerLogLine({ envId: 'env-1', stream: 'stdout', line });
    // Assess
    expect(shown).toBe('env-1 16:46:31 METRICS Quarantines 1 (Reason permanent-error)');
  });

  it('given a line that is not JSON, then it as it came', () => {
    expect(consumerLogLine({ envId: 'env-1', stream: 'stderr', line: 'Error: boom' })).toBe(
      'env-1 Error: boom',
    );
  });

  it('given a crash or a timeout, then what the environment held', () => {
    expect(deathLine('crash', { envId: 'env-3', messageIds: ['m-1'] })).toBe(
      'env-3 crashed holding m-1: they come back after their visibility timeout',
    );
    expect(deathLine('timeout', { envId: 'env-4', messageIds: ['m-2', 'm-3'] })).toBe(
      'env-4 timed out and was killed holding m-2, m-3: they come back after their visibility timeout',
    );
    expect(deathLine('crash', { envId: 'env-5', messageIds: [] })).toBe('env-5 crashed between invocations');
  });
});
