/**
 * Finds a deployment from its consumer function, the same way against AWS, LocalStack and the
 * embedded moto: the function's environment names the tables, bucket, queue and state machine
 * (contract/env.ts, read with the consumer's own parseConfig), and its event source mapping is
 * the one Lambda lists for it. Nothing else has to be configured on the operator's machine.
 */
import { GetFunctionConfigurationCommand, ListEventSourceMappingsCommand } from '@aws-sdk/client-lambda';
import { GetCallerIdentityCommand } from '@aws-sdk/client-sts';
import { AttemptLedger } from '../lambdas/adapters/attempt-ledger';
import { type AwsClients, createClients } from '../lambdas/adapters/clients';
import { ControlState } from '../lambdas/adapters/control-state';
import { Operations } from '../lambdas/adapters/operations';
import { QuarantineRecords } from '../lambdas/adapters/quarantine-reader';
import { SourceQueue } from '../lambdas/adapters/source-queue';
import { type ConsumerConfig, parseConfig } from '../lambdas/core/config';
import { ControlItems } from './control-items';
import { Refused, UsageError } from './errors';
import { ReplayClaims } from './replay-claims';

export interface Target {
  readonly functionName?: string;
  readonly region?: string;
  readonly endpoint?: string;
}

export interface MappingInfo {
  readonly uuid: string;
  /** Lambda's words: Enabled, Disabled, Enabling, Disabling, Updating... */
  readonly state: string;
  readonly batchSize?: number;
  readonly maximumConcurrency?: number;
}

export interface Deployment {
  readonly functionName: string;
  readonly config: ConsumerConfig;
  readonly mapping: MappingInfo | undefined;
  readonly clients: AwsClients;
  readonly records: QuarantineRecords;
  readonly ledger: AttemptLedger;
  readonly control: ControlState;
  readonly controlItems: ControlItems;
  readonly claims: ReplayClaims;
  readonly queue: SourceQueue;
  readonly operations: Operations;
  /** The caller's ARN (STS), for the audit (rule 4); asked once. */
  whoAmI(): Promise<string>;
}

export async function resolveDeployment(target: Target): Promise<Deployment> {
  const functionName = target.functionName?.trim();
  if (!functionName) {
    throw new UsageError('which consumer? pass --function NAME (or set PQ_FUNCTION)');
  }
  const clients = createClients({
    ...(target.region ? { region: target.region } : {}),
    ...(target.endpoint ? { endpoint: target.endpoint } : {}),
  });
  const config = await consumerConfig(clients, functionName);
  const mapping = await mappingOf(clients, functionName, config.sourceQueueArn);
  const { dynamodb, s3, sqs, sfn, sts } = clients;
  let caller: Promise<string> | undefined;
  return {
    functionName,
    config,
    mapping,
    clients,
    records: new QuarantineRecords(s3, dynamodb, config.quarantineBucket, config.quarantineTable),
    ledger: new AttemptLedger(dynamodb, config.attemptsTable),
    control: new ControlState(dynamodb, config.controlTable, config.policy),
    controlItems: new ControlItems(dynamodb, config.controlTable, config.policy.breakerCooldownSeconds),
    claims: new ReplayClaims(dynamodb, config.quarantineTable),
    queue: new SourceQueue(sqs, config.sourceQueueUrl),
    operations: new Operations(sfn, config.stateMachineArn),
    whoAmI: () => {
      caller ??= sts.send(new GetCallerIdentityCommand({})).then(({ Arn }) => {
        if (!Arn) throw new Error('STS GetCallerIdentity returned no Arn: cannot record who acts');
        return Arn;
      });
      return caller;
    },
  };
}

async function consumerConfig(clients: AwsClients, functionName: string): Promise<ConsumerConfig> {
  let variables: Record<string, string>;
  try {
    const result = await clients.lambda.send(
      new GetFunctionConfigurationCommand({ FunctionName: functionName }),
    );
    variables = result.Environment?.Variables ?? {};
  } catch (error) {
    if ((error as Error).name === 'ResourceNotFoundException') {
      throw new Refused(
        `no Lambda function ${functionName} in this account and region (check --function and --region)`,
      );
    }
    throw error;
  }
  // The user's own variables live in the same environment; parseConfig checks only ours.
  const ours = Object.fromEntries(Object.entries(variables).filter(([name]) => name.startsWith('PQ_')));
  if (Object.keys(ours).length === 0) {
    throw new Refused(
      `${functionName} is not a poison-quarantine consumer (no PQ_* variables in its environment)`,
    );
  }
  try {
    return parseConfig(ours);
  } catch (error) {
    throw new Error(`${functionName}'s environment: ${(error as Error).message}`);
  }
}

/**
 * The mapping that reads the source queue. A function may have others (or, in the embedded local
 * AWS, one on a decoy queue): the source queue's wins, else the only one.
 */
async function mappingOf(
  clients: AwsClients,
  functionName: string,
  sourceQueueArn: string,
): Promise<MappingInfo | undefined> {
  const { EventSourceMappings = [] } = await clients.lambda.send(
    new ListEventSourceMappingsCommand({ FunctionName: functionName }),
  );
  const mapping =
    EventSourceMappings.find((candidate) => candidate.EventSourceArn === sourceQueueArn) ??
    (EventSourceMappings.length === 1 ? EventSourceMappings[0] : undefined);
  if (mapping?.UUID === undefined) return undefined;
  return {
    uuid: mapping.UUID,
    state: mapping.State ?? 'unknown',
    ...(mapping.BatchSize === undefined ? {} : { batchSize: mapping.BatchSize }),
    ...(mapping.ScalingConfig?.MaximumConcurrency === undefined
      ? {}
      : { maximumConcurrency: mapping.ScalingConfig.MaximumConcurrency }),
  };
}
