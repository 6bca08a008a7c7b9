/**
 * The adapters' integration fixture: one moto per test file with the construct's own template
 * deployed into it (tools/local-aws/deploy), so the adapters run against the real table schemas, indexes,
 * bucket and state machine, and find them by the names the consumer's environment holds
 * (contract/env.ts), exactly as the handler will.
 *
 * Synthesizing the pipeline bundles the consumer with esbuild (5-10 s). Every adapter file needs
 * the same template, so it is kept in the OS temp directory, keyed by a hash of every source the
 * template derives from; a changed source synthesizes afresh.
 */
import { createHash } from 'node:crypto';
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ENV } from '../../../contract/env';
import { type AwsClients, createClients } from '../../../lambdas/adapters/clients';
import type { StateMachineArns } from '../../../lambdas/core/config';
import { type CfnTemplate, deployTemplate, type LocalStack } from '../../../tools/local-aws/deploy';
import { LOCAL_CREDENTIALS, type LocalAws, startLocalAws } from '../../../tools/local-aws/moto';
import { synthPipeline } from '../../cdk/synth';

const ROOT = join(__dirname, '..', '..', '..');
/** What the synthesized template depends on. */
const TEMPLATE_SOURCES = ['lib', 'contract', 'lambdas', 'test/cdk', 'package-lock.json'];

/** The names the consumer reads from its environment, resolved to the local resources. */
export interface PipelineNames {
  readonly attemptsTable: string;
  readonly controlTable: string;
  readonly quarantineTable: string;
  readonly quarantineBucket: string;
  readonly sourceQueueUrl: string;
  readonly sourceQueueArn: string;
  /** The operations state machines as deployed. */
  readonly stateMachines: StateMachineArns;
}

export interface AdapterPipeline {
  readonly aws: LocalAws;
  readonly clients: AwsClients;
  readonly stack: LocalStack;
  readonly names: PipelineNames;
  stop(): Promise<void>;
}

export async function startPipeline(): Promise<AdapterPipeline> {
  const aws = await startLocalAws();
  try {
    const clients = createClients({
      endpoint: aws.endpoint,
      region: aws.region,
      credentials: LOCAL_CREDENTIALS,
    });
    const stack = await deployTemplate(pipelineTemplate(), {
      clients,
      region: aws.region,
      stackName: 'adapters',
    });
    return { aws, clients, stack, names: namesOf(stack), stop: () => aws.stop() };
  } catch (error) {
    await aws.stop();
    throw error;
  }
}

function namesOf(stack: LocalStack): PipelineNames {
  const consumer = stack.functions.find((fn) => fn.environment[ENV.attemptsTable] !== undefined);
  if (!consumer) throw new Error('the deployed template has no function with the consumer environment');
  const env = (name: string) => {
    const value = consumer.environment[name];
    if (!value) throw new Error(`the consumer environment has no ${name}`);
    return value;
  };
  return {
    attemptsTable: env(ENV.attemptsTable),
    controlTable: env(ENV.controlTable),
    quarantineTable: env(ENV.quarantineTable),
    quarantineBucket: env(ENV.quarantineBucket),
    sourceQueueUrl: env(ENV.sourceQueueUrl),
    sourceQueueArn: env(ENV.sourceQueueArn),
    stateMachines: {
      pause: env(ENV.pauseStateMachineArn),
      verification: env(ENV.verificationStateMachineArn),
    },
  };
}

/** The pipeline's template, synthesized once per change of its sources. */
export function pipelineTemplate(): CfnTemplate {
  const dir = join(tmpdir(), 'pq-adapter-templates');
  const file = join(dir, `${sourcesHash()}.json`);
  if (existsSync(file)) return JSON.parse(readFileSync(file, 'utf8')) as CfnTemplate;
  // Environment-agnostic: the ARNs the construct formats then resolve to the local account.
  const template = synthPipeline({}, null, { bundle: true }).template.toJSON() as CfnTemplate;
  mkdirSync(dir, { recursive: true });
  // Two test files may synthesize at once: write aside, then rename (atomic on one file system).
  const partial = `${file}.${process.pid}.tmp`;
  writeFileSync(partial, JSON.stringify(template));
  renameSync(partial, file);
  return template;
}

function sourcesHash(): string {
  const hash = createHash('sha256');
  for (const source of TEMPLATE_SOURCES) {
    for (const file of filesUnder(join(ROOT, source))) {
      hash.update(file.slice(ROOT.length));
      hash.update(readFileSync(file));
    }
  }
  return hash.digest('hex').slice(0, 24);
}

function filesUnder(path: string): string[] {
  if (!existsSync(path)) return [];
  if (!statSync(path).isDirectory()) return [path];
  return readdirSync(path)
    .sort()
    .flatMap((name) => filesUnder(join(path, name)));
}
