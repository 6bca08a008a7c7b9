// Types of ensure-venv.mjs, a plain node script (it runs before any dependency is installed).
export declare const PROJECT_ROOT: string;
export declare const PROJECT_NODE: string;
export declare class VenvError extends Error {}
/** Creates or updates .venv from tools/local-aws/requirements.txt when its stamp is stale. */
export declare function ensureVenv(): void;
/** `ensureVenv()`, or its reason printed without a stack and exit code 1. */
export declare function ensureVenvOrExit(): void;
/** Whether the module at `moduleUrl` (its import.meta.url) is the script node was started with. */
export declare function startedAsScript(moduleUrl: string): boolean;
/** Runs `ensure` as a command line when the module at `moduleUrl` (its import.meta.url) was started by node. */
export declare function runWhenStarted(moduleUrl: string, ensure: () => void): void;
