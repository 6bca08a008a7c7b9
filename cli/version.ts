/**
 * `pq --version`, in the AWS CLI's shape (`aws-cli/2.x Python/3.x Linux/...`): the tool, the Node
 * it runs on, the platform. The number is the pq package's own (packages/pq/package.json), the
 * one an operator installed; the bundle carries it, not the file.
 */
import { version } from '../packages/pq/package.json';

export function versionLine(): string {
  return `pq/${version} node/${process.version} ${process.platform}/${process.arch}\n`;
}
