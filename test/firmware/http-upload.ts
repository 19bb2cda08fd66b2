/**
 * A firmware upload the way a careful client does it: headers with `Expect: 100-continue`, the body
 * only after the interim 100 (never, if a final status arrives first).
 */
import { request } from 'node:http';

export interface UploadResult {
  status: number;
  /** The server sent 100 Continue (and so the body was sent). */
  continued: boolean;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

export function uploadFirmware(
  baseUrl: string,
  image: Buffer,
  headers: Record<string, string> = {},
): Promise<UploadResult> {
  return new Promise((resolve, reject) => {
    const req = request(`${baseUrl}/api/v1/system/firmware`, {
      method: 'POST',
      agent: false,
      headers: {
        'content-type': 'application/octet-stream',
        'content-length': String(image.length),
        expect: '100-continue',
        ...headers,
      },
    });
    let continued = false;
    req.on('continue', () => {
      continued = true;
      req.end(image);
    });
    req.on('response', (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (body += d));
      res.on('end', () => {
        resolve({ status: res.statusCode ?? 0, continued, headers: res.headers, body });
        if (!continued) req.destroy();
      });
    });
    req.on('error', reject);
    req.flushHeaders();
  });
}
