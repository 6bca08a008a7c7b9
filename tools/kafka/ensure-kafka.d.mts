// Types of ensure-kafka.mjs, a plain node script (it runs before any dependency is installed).
export declare const PROJECT_ROOT: string;
/** The install folder, .kafka (git-ignored). */
export declare const KAFKA_HOME: string;
/** The broker's classpath folder, .kafka/lib: `java -cp "$KAFKA_LIB/*" kafka.Kafka ...`. */
export declare const KAFKA_LIB: string;
export declare class KafkaInstallError extends Error {}
/** The pinned Apache Kafka version, as tools/kafka/pom.xml names it. */
export declare function kafkaVersion(): string;
/** The java the broker runs on: $JAVA_HOME/bin/java when JAVA_HOME is set, else `java` on PATH. */
export declare function javaCommand(): string;
/** Whether .kafka/lib holds the broker installed from tools/kafka/pom.xml as it is now. */
export declare function kafkaInstalled(): boolean;
/** Installs .kafka/lib when it is missing or stale; throws KafkaInstallError. */
export declare function ensureKafka(): void;
