/**
 * Where quarantined content lives in the bucket. The construct scopes IAM to this prefix (the
 * consumer may put objects under it, the operator may read them); the adapters write there.
 */
export const QUARANTINE_PREFIX = 'quarantine/';
