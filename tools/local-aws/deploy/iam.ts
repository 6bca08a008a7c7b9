/**
 * AWS::IAM::Role -> CreateRole, because moto's CreateFunction refuses a role it does not know.
 * Nothing more of IAM is applied: moto does not enforce it.
 */
import { CreateRoleCommand, IAMClient } from '@aws-sdk/client-iam';
import { LocalDeployError } from './errors';
import type { CreateContext, InstantiatedType } from './resource-type';

const IAM_NOT_ENFORCED = 'moto does not enforce IAM';

export const iamRole: InstantiatedType = {
  applies: ['RoleName', 'Path', 'AssumeRolePolicyDocument', 'Description', 'MaxSessionDuration'],
  ignores: {
    ManagedPolicyArns: IAM_NOT_ENFORCED,
    Policies: IAM_NOT_ENFORCED,
    PermissionsBoundary: IAM_NOT_ENFORCED,
    Tags: IAM_NOT_ENFORCED,
  },
  async create(properties, context) {
    const roleName = properties.string('RoleName') ?? context.generatedName({ maxLength: 64 });
    const maxSessionDuration = properties.string('MaxSessionDuration');
    const { Role: role } = await (await iamClient(context)).send(
      new CreateRoleCommand({
        RoleName: roleName,
        AssumeRolePolicyDocument: properties.json('AssumeRolePolicyDocument') ?? '{}',
        Path: properties.string('Path'),
        Description: properties.string('Description'),
        MaxSessionDuration: maxSessionDuration === undefined ? undefined : Number(maxSessionDuration),
      }),
    );
    if (!role?.Arn || !role.RoleId)
      throw new LocalDeployError(`IAM CreateRole for ${context.logicalId} returned no role`);
    return { physicalId: roleName, attributes: { Ref: roleName, Arn: role.Arn, RoleId: role.RoleId } };
  },
};

/** IAM is global: one client per deployment's endpoint and credentials, taken from its STS client. */
async function iamClient(context: CreateContext): Promise<IAMClient> {
  const config = context.clients.sts.config;
  return new IAMClient({
    region: context.region,
    endpoint: await config.endpoint?.(),
    credentials: config.credentials,
  });
}
