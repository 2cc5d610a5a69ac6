import type { FastifyInstance } from 'fastify';
import { ApiProblem } from './problem.js';

// JSON is UTF-8 (RFC 8259); a body declared in another charset is refused rather than misread.
const CHARSET = /;\s*charset\s*=\s*"?([^";\s]+)/i;

export function registerCharsetCheck(app: FastifyInstance): void {
  app.addHook('onRequest', async (request) => {
    const charset = CHARSET.exec(request.headers['content-type'] ?? '')?.[1];
    if (charset && !/^utf-?8$/i.test(charset)) {
      throw new ApiProblem(415, 'UNSUPPORTED_MEDIA_TYPE', `request bodies must be UTF-8, not ${charset}`);
    }
  });
}
