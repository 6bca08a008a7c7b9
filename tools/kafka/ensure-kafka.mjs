// Installs the embedded Apache Kafka broker (KRaft, no ZooKeeper) the Kafka tests start: the
// runtime classpath of org.apache.kafka:kafka_2.13, pinned in tools/kafka/pom.xml, copied from
// Maven Central by the machine's `mvn` into .kafka/lib (git-ignored). Does nothing, and prints
// nothing, when .kafka/lib was installed from the same pom.xml; else prints one line on stderr
// and installs (Maven's own output is shown only when it fails: exit code 1). Needs Java >= 17
// (JAVA_HOME's, else `java` on PATH) and Maven (`mvn`, or $MVN). Run directly
// (`node tools/kafka/ensure-kafka.mjs`) or imported (`ensureKafka()`); plain node, no
// dependencies: it runs on whatever Node.js (>= 20) the machine has.
import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startedAsScript } from '../local-aws/ensure-venv.mjs';

export const PROJECT_ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
/** The install folder (git-ignored): lib/ holds the broker's jars, .pom.sha256 the pin they came from. */
export const KAFKA_HOME = join(PROJECT_ROOT, '.kafka');
/** The broker's classpath folder: `java -cp "$KAFKA_LIB/*" kafka.Kafka ...`. */
export const KAFKA_LIB = join(KAFKA_HOME, 'lib');

const POM = join(PROJECT_ROOT, 'tools', 'kafka', 'pom.xml');
const STAMP = join(KAFKA_HOME, '.pom.sha256');
const JAVA_MAJOR = 17;

const USAGE = `Usage: node tools/kafka/ensure-kafka.mjs

Installs the embedded Apache Kafka broker (KRaft) for the tests: the runtime classpath of
org.apache.kafka:kafka_2.13 pinned in tools/kafka/pom.xml, from Maven Central with mvn, into
.kafka/lib. Does nothing and prints nothing when that pin is installed already.
Needs Java >= ${JAVA_MAJOR} (JAVA_HOME, else java on PATH) and Maven (mvn, or $MVN).
`;

/** A reason the broker cannot be installed, for a person: printed without a stack. */
export class KafkaInstallError extends Error {
  name = 'KafkaInstallError';
}

/** The pinned Apache Kafka version, as tools/kafka/pom.xml names it. */
export function kafkaVersion() {
  const match = /<kafka\.version>([^<]+)<\/kafka\.version>/.exec(readFileSync(POM, 'utf8'));
  if (!match) throw new KafkaInstallError(`poison-quarantine: no <kafka.version> in ${POM}`);
  return match[1];
}

/** The java the broker runs on: $JAVA_HOME/bin/java when JAVA_HOME is set, else `java` on PATH. */
export function javaCommand() {
  const home = process.env.JAVA_HOME;
  return home && existsSync(join(home, 'bin', 'java')) ? join(home, 'bin', 'java') : 'java';
}

/** Whether .kafka/lib holds the broker installed from tools/kafka/pom.xml as it is now. */
export function kafkaInstalled() {
  return (
    existsSync(STAMP) &&
    readFileSync(STAMP, 'utf8') === pomHash() &&
    existsSync(join(KAFKA_LIB, `kafka_2.13-${kafkaVersion()}.jar`))
  );
}

/** Installs .kafka/lib when it is missing or was installed from another pom.xml; throws KafkaInstallError. */
export function ensureKafka() {
  if (kafkaInstalled()) return;
  const version = kafkaVersion();
  checkJava();
  const mvn = process.env.MVN ?? 'mvn';
  console.error(
    `poison-quarantine: installing Apache Kafka ${version} (KRaft broker) from Maven Central into ${relative(process.cwd(), KAFKA_HOME) || '.'} ...`,
  );
  // Copied beside lib/ first, then renamed: an interrupted install leaves no half a classpath.
  const partial = join(KAFKA_HOME, `lib.partial-${process.pid}`);
  rmSync(partial, { recursive: true, force: true });
  mkdirSync(KAFKA_HOME, { recursive: true });
  try {
    execFileSync(
      mvn,
      [
        '--batch-mode',
        '--no-transfer-progress',
        '-f',
        POM,
        'dependency:copy-dependencies',
        '-DincludeScope=runtime',
        `-DoutputDirectory=${partial}`,
      ],
      { cwd: PROJECT_ROOT, stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 64 * 1024 * 1024 },
    );
  } catch (error) {
    rmSync(partial, { recursive: true, force: true });
    const output = `${error.stdout ?? ''}${error.stderr ?? ''}`.trim();
    throw new KafkaInstallError(
      error.code === 'ENOENT'
        ? `poison-quarantine: Maven is required to install the embedded Kafka broker and was not found (tried "${mvn}").`
        : `${output}\npoison-quarantine: installing Apache Kafka ${version} failed: ${mvn} exited with ${error.status ?? error.signal}.`,
    );
  }
  rmSync(KAFKA_LIB, { recursive: true, force: true });
  renameSync(partial, KAFKA_LIB);
  writeFileSync(STAMP, pomHash());
}

function pomHash() {
  return createHash('sha256').update(readFileSync(POM)).digest('hex');
}

/** Throws KafkaInstallError unless javaCommand() answers with a version of at least JAVA_MAJOR. */
function checkJava() {
  const java = javaCommand();
  // `java -version` writes its banner to stderr: `openjdk version "17.0.15" 2025-04-15`.
  const run = spawnSync(java, ['-version'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  if (run.error) {
    throw new KafkaInstallError(
      `poison-quarantine: Java >= ${JAVA_MAJOR} is required by the embedded Kafka broker and was not found (tried "${java}").`,
    );
  }
  const match = /version "(\d+)(?:\.(\d+))?/.exec(`${run.stderr}${run.stdout}`);
  const major = match ? Number(match[1] === '1' ? match[2] : match[1]) : Number.NaN;
  if (!(major >= JAVA_MAJOR)) {
    throw new KafkaInstallError(
      `poison-quarantine: Java >= ${JAVA_MAJOR} is required by the embedded Kafka broker (found ${match ? major : 'no version'} at "${java}").`,
    );
  }
}

if (startedAsScript(import.meta.url)) {
  const args = process.argv.slice(2);
  if (args.includes('--help') || args.includes('-h')) {
    process.stdout.write(USAGE);
  } else if (args.length > 0) {
    process.stderr.write(`ensure-kafka: unknown argument ${args[0]}\n\n${USAGE}`);
    process.exitCode = 2;
  } else {
    try {
      ensureKafka();
    } catch (error) {
      if (!(error instanceof KafkaInstallError)) throw error;
      console.error(error.message);
      process.exitCode = 1;
    }
  }
}
