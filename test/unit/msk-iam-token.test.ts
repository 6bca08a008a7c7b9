/**
 * The MSK IAM authentication token `pq replay` sends as SASL/OAUTHBEARER
 * (lambdas/adapters/kafka-access.ts mskIamToken): AWS's own signer (aws-msk-iam-sasl-signer-js),
 * called for real with fake static credentials, and its token decoded: the base64url of a URL
 * presigned for kafka-cluster:Connect at kafka.<region>.amazonaws.com, with those credentials.
 */
import { describe, expect, it } from 'vitest';
import { mskIamToken } from '../../lambdas/adapters/kafka-access';

/** AWS's documentation example keys: they sign, and open nothing. */
const FAKE = {
  accessKeyId: 'AKIAIOSFODNN7EXAMPLE',
  secretAccessKey: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY',
};

describe('mskIamToken', () => {
  it('given credentials and a region, then a base64url presigned kafka-cluster:Connect URL for that region', async () => {
    // Act
    const token = await mskIamToken('eu-west-1', async () => FAKE);

    // Assess
    expect(token).toMatch(/^[A-Za-z0-9_-]+$/);
    const url = new URL(Buffer.from(token, 'base64url').toString('utf8'));
    expect(url.protocol).toBe('https:');
    expect(url.host).toBe('kafka.eu-west-1.amazonaws.com');
    expect(url.searchParams.get('Action')).toBe('kafka-cluster:Connect');
    expect(url.searchParams.get('X-Amz-Algorithm')).toBe('AWS4-HMAC-SHA256');
    expect(url.searchParams.get('X-Amz-Credential')).toMatch(
      /^AKIAIOSFODNN7EXAMPLE\/\d{8}\/eu-west-1\/kafka-cluster\/aws4_request$/,
    );
    expect(url.searchParams.get('X-Amz-Expires')).toBe('900');
    expect(url.searchParams.get('X-Amz-Signature')).toMatch(/^[0-9a-f]{64}$/);
  });

  it('given temporary credentials, then their session token is signed in', async () => {
    // Act
    const token = await mskIamToken('us-east-1', async () => ({
      ...FAKE,
      sessionToken: 'session-token-example',
    }));

    // Assess
    const url = new URL(Buffer.from(token, 'base64url').toString('utf8'));
    expect(url.host).toBe('kafka.us-east-1.amazonaws.com');
    expect(url.searchParams.get('X-Amz-Security-Token')).toBe('session-token-example');
  });

  it('given no credentials, then the signer refuses', async () => {
    await expect(
      mskIamToken('eu-west-1', async () => ({ accessKeyId: '', secretAccessKey: '' })),
    ).rejects.toThrow('AWS credentials cannot be empty to generate auth token.');
  });
});
