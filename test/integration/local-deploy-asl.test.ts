/**
 * The aws-sdk parameter translation for moto: the template keeps the AWS (Java SDK v2) spelling,
 * moto gets boto3's. Pins both: moto fails the AWS spelling, and every entry of the table reaches
 * the service under its boto3 name.
 */
import {
  CreateStateMachineCommand,
  DescribeExecutionCommand,
  GetExecutionHistoryCommand,
  StartExecutionCommand,
} from '@aws-sdk/client-sfn';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AwsClients, createClients } from '../../lambdas/adapters/clients';
import { MOTO_PARAMETER_NAMES, translateDefinitionForMoto } from '../../tools/local-aws/deploy';
import { LOCAL_CREDENTIALS, type LocalAws, startLocalAws } from '../../tools/local-aws/moto';

const task = (resource: string, parameters: Record<string, unknown>) => ({
  Type: 'Task',
  Resource: resource,
  Parameters: parameters,
  ResultPath: null,
  End: true,
});
const oneTask = (resource: string, parameters: Record<string, unknown>) =>
  JSON.stringify({ StartAt: 'Call', States: { Call: task(resource, parameters) } });
const UPDATE_MAPPING = 'arn:aws:states:::aws-sdk:lambda:updateEventSourceMapping';

describe('translateDefinitionForMoto', () => {
  it('renames the listed parameters, JSONPath ones included, and leaves the rest', () => {
    const translated = JSON.parse(
      translateDefinitionForMoto(oneTask(UPDATE_MAPPING, { 'Uuid.$': '$.mappingId', Enabled: false })),
    );
    expect(translated.States.Call.Parameters).toEqual({ 'UUID.$': '$.mappingId', Enabled: false });
  });

  it('reaches tasks inside Parallel branches and Map processors, and callback tasks', () => {
    const definition = {
      StartAt: 'Both',
      States: {
        Both: {
          Type: 'Parallel',
          End: true,
          Branches: [
            {
              StartAt: 'Wait',
              States: {
                Wait: task('arn:aws:states:::aws-sdk:sfn:sendTaskSuccess.waitForTaskToken', {
                  'TaskToken.$': '$$.Task.Token',
                  Output: '{}',
                }),
              },
            },
            {
              StartAt: 'Each',
              States: {
                Each: {
                  Type: 'Map',
                  End: true,
                  ItemProcessor: { StartAt: 'Get', States: { Get: task(UPDATE_MAPPING, { Uuid: 'u' }) } },
                },
              },
            },
          ],
        },
      },
    };
    const translated = JSON.parse(translateDefinitionForMoto(JSON.stringify(definition)));
    const [callback, map] = translated.States.Both.Branches;
    expect(callback.States.Wait.Parameters).toEqual({ 'taskToken.$': '$$.Task.Token', output: '{}' });
    expect(map.States.Each.ItemProcessor.States.Get.Parameters).toEqual({ UUID: 'u' });
  });

  it('leaves optimised integrations and unlisted actions as written', () => {
    const definition = {
      StartAt: 'Publish',
      States: {
        Publish: {
          ...task('arn:aws:states:::sns:publish', { TopicArn: 't', Message: 'm' }),
          End: undefined,
          Next: 'Put',
        },
        Put: task('arn:aws:states:::aws-sdk:dynamodb:putItem', { TableName: 't', Item: {} }),
      },
    };
    expect(JSON.parse(translateDefinitionForMoto(JSON.stringify(definition)))).toEqual(
      JSON.parse(JSON.stringify(definition)),
    );
  });
});

describe('against moto', () => {
  let aws: LocalAws;
  let clients: AwsClients;

  beforeAll(async () => {
    aws = await startLocalAws();
    clients = createClients({ region: aws.region, endpoint: aws.endpoint, credentials: LOCAL_CREDENTIALS });
  });
  afterAll(async () => {
    await aws?.stop();
  });

  let machines = 0;
  async function run(definition: string) {
    machines += 1;
    const { stateMachineArn } = await clients.sfn.send(
      new CreateStateMachineCommand({
        name: `asl-${machines}`,
        definition,
        roleArn: `arn:aws:iam::123456789012:role/asl-test`,
      }),
    );
    const { executionArn } = await clients.sfn.send(new StartExecutionCommand({ stateMachineArn }));
    for (let polls = 0; polls < 100; polls += 1) {
      const execution = await clients.sfn.send(new DescribeExecutionCommand({ executionArn }));
      if (execution.status !== 'RUNNING') {
        const { events } = await clients.sfn.send(new GetExecutionHistoryCommand({ executionArn }));
        const scheduled = events?.find((event) => event.type === 'TaskScheduled')?.taskScheduledEventDetails;
        return {
          status: execution.status,
          error: execution.error,
          parameters: JSON.parse(scheduled?.parameters ?? '{}'),
        };
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    throw new Error(`execution ${executionArn} still running after 10 s`);
  }

  it('fails a task written with the AWS spelling (States.Runtime): the translation is needed', async () => {
    const result = await run(oneTask(UPDATE_MAPPING, { Uuid: 'any', Enabled: false }));
    expect(result).toMatchObject({ status: 'FAILED', error: 'States.Runtime' });
  });

  it.each(Object.entries(MOTO_PARAMETER_NAMES))(
    '%s reaches the service under the boto3 names %j',
    async (action, names) => {
      const awsSpelled = Object.fromEntries(Object.keys(names).map((awsName) => [awsName, 'not-a-real-id']));
      const result = await run(
        translateDefinitionForMoto(oneTask(`arn:aws:states:::aws-sdk:${action}`, awsSpelled)),
      );
      // The service itself answered: moto ignores an unknown mapping id in update and delete and
      // refuses it in get; Step Functions refuses the token. Only a missing parameter is States.Runtime.
      expect(result.error).not.toBe('States.Runtime');
      expect(Object.keys(result.parameters).sort()).toEqual(Object.values(names).sort());
    },
  );
});
