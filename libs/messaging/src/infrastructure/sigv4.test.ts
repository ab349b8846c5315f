import { sha256Hex, signV4 } from './sigv4';

// The examples of the S3 SigV4 documentation ("Signature Calculations for the Authorization
// Header: Transferring Payload in a Single Chunk").
const credentials = { accessKeyId: 'AKIAIOSFODNN7EXAMPLE', secretAccessKey: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY', region: 'us-east-1', amzDate: '20130524T000000Z' };

describe('SigV4', () => {
  it('should sign the documented GET object example', () => {
    const payloadHash = sha256Hex('');
    const authorization = signV4({
      ...credentials,
      method: 'GET',
      url: new URL('https://examplebucket.s3.amazonaws.com/test.txt'),
      headers: { host: 'examplebucket.s3.amazonaws.com', range: 'bytes=0-9', 'x-amz-content-sha256': payloadHash, 'x-amz-date': credentials.amzDate },
      payloadHash,
    });
    expect(authorization).toBe(
      'AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request,SignedHeaders=host;range;x-amz-content-sha256;x-amz-date,Signature=f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41',
    );
  });

  it('should sign the documented PUT object example', () => {
    const payloadHash = sha256Hex('Welcome to Amazon S3.');
    const authorization = signV4({
      ...credentials,
      method: 'PUT',
      url: new URL('https://examplebucket.s3.amazonaws.com/test$file.text'),
      headers: {
        date: 'Fri, 24 May 2013 00:00:00 GMT', host: 'examplebucket.s3.amazonaws.com', 'x-amz-content-sha256': payloadHash, 'x-amz-date': credentials.amzDate, 'x-amz-storage-class': 'REDUCED_REDUNDANCY',
      },
      payloadHash,
    });
    expect(authorization).toMatch(/Signature=98ad721746da40c64f1a55b78f14c238d841ea1380cd77a1b5971af0ece108bd$/);
  });
});
