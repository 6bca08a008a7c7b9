/** What each service module implements, and what it is given. */
import type { LocalAwsClients } from '../clients';
import type { NameRule } from './names';
import type { Properties } from './properties';
import type { LocalEventSourceMapping, LocalFunction, LocalStateMachine } from './types';

export interface CreateContext {
  readonly logicalId: string;
  readonly clients: LocalAwsClients;
  readonly region: string;
  readonly accountId: string;
  readonly partition: string;
  readonly stackName: string;
  /** The resource's Metadata (CDK puts the asset path there). */
  readonly metadata: Readonly<Record<string, unknown>>;
  /** The cloud assembly directory (cdk.out) asset paths are relative to. */
  readonly assemblyDir?: string;
  /** A physical name for this resource when the template gives none. */
  generatedName(rule: NameRule): string;
}

export interface Created {
  readonly physicalId: string;
  /** Fn::GetAtt values; `Ref` holds what Ref returns. */
  readonly attributes: Readonly<Record<string, string>>;
  readonly function?: LocalFunction;
  readonly eventSourceMapping?: LocalEventSourceMapping;
  readonly stateMachine?: LocalStateMachine;
}

/** A resource type the local deployment creates in moto. */
export interface InstantiatedType {
  /** Properties applied in moto. */
  readonly applies: readonly string[];
  /** Properties accepted but not applied locally, each with its reason. Any other property is an error. */
  readonly ignores: Readonly<Record<string, string>>;
  create(properties: Properties, context: CreateContext): Promise<Created>;
}

/** A resource type the local deployment records without creating anything. */
export interface NotInstantiatedType {
  readonly reason: string;
  /** Synthetic Ref and attribute values, for the types other resources refer to. */
  readonly attributes?: (properties: Properties, context: CreateContext) => Record<string, string>;
}
