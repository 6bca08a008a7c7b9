/** runCli with no environment: a command that got as far as AWS would fail on "which consumer?". */
import { runCli } from '../../cli/run';

export async function pq(...argv: string[]) {
  let stdout = '';
  let stderr = '';
  const code = await runCli(argv, {
    stdout: { write: (text: string) => (stdout += text) },
    stderr: { write: (text: string) => (stderr += text) },
    env: {},
  });
  return { code, stdout, stderr };
}
