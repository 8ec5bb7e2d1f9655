import { CliError } from '../errors.js';

export interface Versions {
  versionId?: string;
  versionTime?: string;
}

/**
 * A DID or a DID URL (`did:node:...?versionId=...`) and the version options, as the DID and the versions to
 * ask the node for. A DID URL's query and an option naming the same parameter must agree.
 */
export function parseDidUrl(input: string, options: Versions): { did: string; versions: Versions } {
  const [did = '', query, ...more] = input.split('?');
  if (more.length > 0 || did.includes('#')) throw new CliError(`${input}: give a DID, or a DID URL with one query`, 2);
  const versions: Versions = {};
  for (const [name, value] of new URLSearchParams(query ?? '')) {
    if (name !== 'versionId' && name !== 'versionTime')
      throw new CliError(`${input}: the DID URL parameter ${name} is not supported (versionId, versionTime)`, 2);
    versions[name] = value;
  }
  for (const name of ['versionId', 'versionTime'] as const) {
    const option = options[name];
    if (option === undefined) continue;
    if (versions[name] !== undefined && versions[name] !== option)
      throw new CliError(`the DID URL says ${name}=${versions[name]} and --${kebab(name)} says ${option}`, 2);
    versions[name] = option;
  }
  if (versions.versionId !== undefined && versions.versionTime !== undefined)
    throw new CliError('give versionId or versionTime, not both', 2);
  if (versions.versionTime !== undefined && Number.isNaN(Date.parse(versions.versionTime)))
    throw new CliError(`versionTime ${versions.versionTime} is not a time (RFC 3339, e.g. 2026-12-01T00:00:00Z)`, 2);
  return { did, versions };
}

function kebab(name: string): string {
  return name.replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`);
}
