/**
 * AWS::StepFunctions::StateMachine -> CreateStateMachine through the Step Functions API: moto only
 * executes state machines created so, not those created through its CloudFormation. The definition
 * is the resolved DefinitionString (or Definition) with DefinitionSubstitutions applied, translated
 * for moto (asl-for-moto.ts).
 */
import { CreateStateMachineCommand, type StateMachineType } from '@aws-sdk/client-sfn';
import { translateDefinitionForMoto } from './asl-for-moto';
import type { Properties } from './properties';
import type { InstantiatedType } from './resource-type';

export const stepFunctionsStateMachine: InstantiatedType = {
  applies: [
    'DefinitionString',
    'Definition',
    'DefinitionSubstitutions',
    'RoleArn',
    'StateMachineName',
    'StateMachineType',
    'Tags',
  ],
  ignores: {
    LoggingConfiguration: 'nothing logs locally (log groups are not instantiated)',
    TracingConfiguration: 'no traces are collected locally',
    EncryptionConfiguration: 'moto does not encrypt execution data',
  },
  async create(properties, context) {
    const name = properties.string('StateMachineName') ?? context.generatedName({ maxLength: 80 });
    const definition = translateDefinitionForMoto(substitute(definitionOf(properties), properties));
    const tags = properties.tags();
    const { stateMachineArn } = await context.clients.sfn.send(
      new CreateStateMachineCommand({
        name,
        definition,
        roleArn: properties.requiredString('RoleArn'),
        type: (properties.string('StateMachineType') ?? 'STANDARD') as StateMachineType,
        tags: tags && Object.entries(tags).map(([key, value]) => ({ key, value })),
      }),
    );
    const arn = String(stateMachineArn);
    return {
      physicalId: arn,
      attributes: { Ref: arn, Arn: arn, Name: name },
      stateMachine: { logicalId: context.logicalId, arn, definition },
    };
  },
};

function definitionOf(properties: Properties): string {
  const definition = properties.object('Definition');
  return definition ? JSON.stringify(definition) : properties.requiredString('DefinitionString');
}

/** `${name}` in the definition stands for the substitution's value, as CloudFormation replaces it. */
function substitute(definition: string, properties: Properties): string {
  const substitutions = properties.object('DefinitionSubstitutions') ?? {};
  return definition.replace(/\$\{([^}]+)\}/g, (text, name: string) =>
    name in substitutions ? String(substitutions[name]) : text,
  );
}
