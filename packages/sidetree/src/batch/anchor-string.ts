import { badRequest } from '@anchor/common/errors';
import type { ProtocolParameters } from '../protocol.js';

/** The anchor string `<operation count>.<core index file URI>` (in orb the URI is a hashlink). */
export interface AnchorString {
  operationCount: number;
  coreIndexFileUri: string;
}

const COUNT = /^[1-9][0-9]*$/;

export function formatAnchorString(anchor: AnchorString): string {
  return `${anchor.operationCount}.${anchor.coreIndexFileUri}`;
}

/** Parses and checks an anchor string: a positive count without leading zeros, within the batch limit, and a URI. */
export function parseAnchorString(text: string, protocol: ProtocolParameters): AnchorString {
  if (typeof text !== 'string') throw badRequest('anchor string must be a string');
  const dot = text.indexOf('.');
  if (dot < 0) throw badRequest(`anchor string '${text}' must be <operation count>.<core index file URI>`);
  const count = text.slice(0, dot);
  const coreIndexFileUri = text.slice(dot + 1);
  if (!COUNT.test(count))
    throw badRequest(`anchor string operation count '${count}' must be a positive integer without leading zeros`);
  const operationCount = Number(count);
  if (operationCount > protocol.maxOperationCount) {
    throw badRequest(
      `anchor string declares ${operationCount} operations; the maximum per batch is ${protocol.maxOperationCount}`,
    );
  }
  checkCasUri(coreIndexFileUri, 'core index file URI', protocol);
  return { operationCount, coreIndexFileUri };
}

export function checkCasUri(uri: unknown, what: string, protocol: ProtocolParameters): string {
  if (typeof uri !== 'string' || uri.length === 0) throw badRequest(`${what} must be a non-empty string`);
  if (uri.length > protocol.maxCasUriLength)
    throw badRequest(`${what} is too long: ${uri.length} characters exceeds ${protocol.maxCasUriLength}`);
  return uri;
}
