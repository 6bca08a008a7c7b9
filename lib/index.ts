/**
 * The package's main entry ('poison-quarantine'): the construct and its props, for a CDK app.
 * What a processing module imports at run time is in 'poison-quarantine/runtime'
 * (lambdas/runtime.ts), which never loads aws-cdk-lib.
 */
export { PoisonQuarantine, type PoisonQuarantineProps } from './poison-quarantine';
