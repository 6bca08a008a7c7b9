// The user's processing module, substituted at bundling time by esbuild's alias (see
// lib/consumer-function.ts). Typed here so the handler type-checks against the contract.
declare module 'pq-user-processor' {
  import type { Processor, ProcessorModule } from '../consumer/types';
  export const process: Processor;
  export const classify: ProcessorModule['classify'];
}
