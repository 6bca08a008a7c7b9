/** The local deployment of a synthesized template into moto (see deploy.ts). */
export { MOTO_PARAMETER_NAMES, translateDefinitionForMoto } from './asl-for-moto';
export {
  type DeployCdkOutOptions,
  type DeployOptions,
  deployCdkOut,
  deployTemplate,
  findStack,
} from './deploy';
export { LocalDeployError } from './errors';
export { INSTANTIATED_TYPES, NOT_INSTANTIATED_TYPES } from './registry';
export type {
  CfnTemplate,
  DeployedResource,
  LocalEventSourceMapping,
  LocalFunction,
  LocalStack,
  LocalStateMachine,
} from './types';
