/**
 * How the AWS SDK clients are configured, with no SDK module loaded: `endpoint` points them at
 * the embedded local AWS or LocalStack; without it the SDK's own resolution applies
 * (AWS_ENDPOINT_URL included).
 */
export interface ClientOptions {
  readonly region?: string;
  readonly endpoint?: string;
  /** A profile of the shared AWS config and credentials files (the operator's `pq --profile`). */
  readonly profile?: string;
  readonly credentials?: { readonly accessKeyId: string; readonly secretAccessKey: string };
}

/** The configuration every client shares: only what was given, so the SDK resolves the rest. */
export function clientConfig(options: ClientOptions): ClientOptions {
  return {
    ...(options.region ? { region: options.region } : {}),
    ...(options.endpoint ? { endpoint: options.endpoint } : {}),
    ...(options.profile ? { profile: options.profile } : {}),
    ...(options.credentials ? { credentials: options.credentials } : {}),
  };
}
