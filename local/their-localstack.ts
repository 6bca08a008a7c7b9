/**
 * The demo stack deployed into a LocalStack of the user's own (`npm run local:deploy -- --target
 * localstack --endpoint-url URL`, issue 20 item 3): checked first, then `cdk deploy` through its
 * CloudFormation exactly as into the embedded one, and read back. Nothing of ours keeps running:
 * there, LocalStack's Lambda runs the consumer and its poller plays the mapping, and the stack
 * stays until that LocalStack stops.
 */
import type { LocalStack } from '../tools/local-aws/deploy';
import { LOCAL_REGION } from '../tools/local-aws/moto';
import { deployOnLocalStack } from '../tools/localstack/cdk-deploy';
import { readDeployedStack } from '../tools/localstack/deployed-stack';
import { checkLocalStack } from '../tools/localstack/localstack';
import type { DemoAssembly } from './demo-assembly';

export async function deployIntoTheirLocalStack(
  endpoint: string,
  assembly: DemoAssembly,
  stackName = 'PoisonQuarantineDemo',
): Promise<LocalStack> {
  // LocalStack's own default region, the one cdklocal deploys into unless told otherwise.
  const localstack = await checkLocalStack(endpoint, LOCAL_REGION);
  const cdkOut = assembly.synthesize(stackName, undefined);
  const { outputs } = await deployOnLocalStack(localstack, cdkOut, stackName);
  return readDeployedStack(localstack, cdkOut, stackName, outputs);
}
