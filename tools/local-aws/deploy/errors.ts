/** A template the local deployment cannot instantiate; the message names the logical id. */
export class LocalDeployError extends Error {
  constructor(message: string, options?: { readonly cause?: unknown }) {
    super(message, options);
    this.name = 'LocalDeployError';
  }
}
