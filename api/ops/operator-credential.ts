import { createHash, timingSafeEqual } from 'node:crypto';

/**
 * The ops console's credential: the operator secret in NORDPROP_OPS_TOKEN, presented as HTTP
 * Basic (any user name, the secret as password: what a browser asks for) or as a bearer token.
 * An API client's token is not this secret, so it never opens the console. Unset: no console.
 */
export const OPS_TOKEN_VARIABLE = 'NORDPROP_OPS_TOKEN';

export function operatorSecret(env: NodeJS.ProcessEnv = process.env): string | undefined {
  return env[OPS_TOKEN_VARIABLE] || undefined;
}

/** Constant time whatever the lengths: the digests are compared, never the texts. */
function sameSecret(presented: string, secret: string): boolean {
  const digest = (text: string) => createHash('sha256').update(text, 'utf8').digest();
  return timingSafeEqual(digest(presented), digest(secret));
}

/** The secret from an Authorization header (Basic or Bearer), or undefined when there is none. */
function presentedSecret(authorization: string | undefined): string | undefined {
  const match = /^(Basic|Bearer)[ ]+(\S+)\s*$/i.exec(authorization ?? '');
  if (!match) return undefined;
  if (match[1].toLowerCase() === 'bearer') return match[2];
  const decoded = Buffer.from(match[2], 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  return colon < 0 ? undefined : decoded.slice(colon + 1);
}

export function holdsOperatorSecret(authorization: string | undefined, secret: string): boolean {
  const presented = presentedSecret(authorization);
  return presented !== undefined && sameSecret(presented, secret);
}
