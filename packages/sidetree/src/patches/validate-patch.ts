import { AppError, badRequest } from '@anchor/common/errors';
import { isJsonObject, rejectUnknownMembers } from '../json.js';
import type { ParseMode } from '../operations/parse-mode.js';
import { PATCH_ACTIONS, type PatchAction, type ProtocolParameters } from '../protocol.js';
import { checkAlsoKnownAsUris } from './also-known-as.js';
import { checkIdList } from './ids.js';
import { checkPublicKeys } from './public-keys.js';
import { checkServices } from './services.js';
import type { Patch, ReplaceDocument } from './types.js';

/** The members each action carries besides `action` (ingest rejects anything else). */
const MEMBERS_OF: Readonly<Record<PatchAction, string>> = {
  'add-public-keys': 'publicKeys',
  'remove-public-keys': 'ids',
  'add-services': 'services',
  'remove-services': 'ids',
  'add-also-known-as': 'uris',
  'remove-also-known-as': 'uris',
  replace: 'document',
};
const REPLACE_DOCUMENT_MEMBERS: ReadonlySet<string> = new Set(['publicKeys', 'services']);

/**
 * Validates one patch and returns it typed. The returned object is the patch as received: patches are hashed
 * and written to batch files exactly as sent (Orb keeps patch members as raw maps). Errors read
 * `invalid patch <index> (<action>): <problem>`.
 */
export function validatePatch(value: unknown, index: number, protocol: ProtocolParameters, mode: ParseMode): Patch {
  if (!isJsonObject(value)) throw badRequest(`invalid patch ${index}: a patch must be a JSON object`);
  const { action } = value;
  if (typeof action !== 'string') throw badRequest(`invalid patch ${index}: action must be a string`);
  if (!(PATCH_ACTIONS as readonly string[]).includes(action))
    throw badRequest(`invalid patch ${index}: action '${action}' is not a known patch action`);
  const known = action as PatchAction;
  if (!protocol.patchActions.includes(known))
    throw badRequest(`invalid patch ${index}: action '${action}' is not enabled by ${protocol.name}`);
  try {
    if (mode === 'ingest') rejectUnknownMembers(value, new Set(['action', MEMBERS_OF[known]]), 'patch');
    checkPatchBody(known, value, mode, protocol);
  } catch (error) {
    if (error instanceof AppError) throw badRequest(`invalid patch ${index} (${action}): ${error.message}`);
    throw error;
  }
  return value as unknown as Patch;
}

function checkPatchBody(
  action: PatchAction,
  patch: Record<string, unknown>,
  mode: ParseMode,
  protocol: ProtocolParameters,
): void {
  switch (action) {
    case 'add-public-keys':
      checkPublicKeys(patch.publicKeys, mode, {
        allowEmpty: false,
        allowUnknownKeyTypes: protocol.allowUnknownKeyTypes,
      });
      return;
    case 'remove-public-keys':
      checkIdList(patch.ids, 'public key');
      return;
    case 'add-services':
      checkServices(patch.services, mode, { allowEmpty: false });
      return;
    case 'remove-services':
      checkIdList(patch.ids, 'service');
      return;
    case 'add-also-known-as':
    case 'remove-also-known-as':
      checkAlsoKnownAsUris(patch.uris, mode);
      return;
    case 'replace':
      checkReplaceDocument(patch.document, mode, protocol);
      return;
  }
}

function checkReplaceDocument(document: unknown, mode: ParseMode, protocol: ProtocolParameters): ReplaceDocument {
  if (!isJsonObject(document)) throw badRequest('document must be a JSON object');
  rejectUnknownMembers(document, REPLACE_DOCUMENT_MEMBERS, 'document');
  if (document.publicKeys !== undefined)
    checkPublicKeys(document.publicKeys, mode, {
      allowEmpty: true,
      allowUnknownKeyTypes: protocol.allowUnknownKeyTypes,
    });
  if (document.services !== undefined) checkServices(document.services, mode, { allowEmpty: true });
  return document as ReplaceDocument;
}
