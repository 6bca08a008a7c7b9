/**
 * A port whose adapter is made on its first call. The consumer's cold start loads only what the
 * healthy path calls (the DynamoDB client); the S3, Step Functions and SQS clients load, as
 * chunks of their own, when a rare path first needs them (create-consumer.ts).
 */

/** Every method of a port, named once: the compiler refuses a list that misses one or adds one. */
export type PortMethods<T> = { readonly [K in keyof T]: true };

type AsyncMethod = (...args: unknown[]) => Promise<unknown>;

/**
 * A stand-in for the adapter `load` makes: each call waits for the one load, then calls the
 * adapter. A failed load is not kept, so the next call tries again; its error reaches the caller
 * as `failed(cause)` names it, the port's own error (a failure to reach the service).
 */
export function lazyPort<T extends object>(
  methods: PortMethods<T>,
  load: () => Promise<T>,
  failed: (cause: unknown) => Error,
): T {
  let loading: Promise<T> | undefined;
  const adapter = (): Promise<T> => {
    loading ??= load().catch((cause: unknown) => {
      loading = undefined;
      throw failed(cause);
    });
    return loading;
  };
  const port: Record<string, AsyncMethod> = {};
  for (const name of Object.keys(methods)) {
    port[name] = async (...args) => {
      const target = (await adapter()) as unknown as Record<string, AsyncMethod>;
      return target[name](...args);
    };
  }
  return port as unknown as T;
}
