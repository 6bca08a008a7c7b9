// Types of ensure-localstack.mjs, a plain node script.
export declare const LOCALSTACK_VENV: string;
/** Creates or updates .venv-localstack from tools/localstack/requirements.txt when its stamp is stale. */
export declare function ensureLocalStack(): void;
