/** The host (host[:port]) an IRI belongs to: a URL's host, or a did:web DID's host. Pure: the explorer bundles it. */
export function hostOf(iri: string): string | undefined {
  if (iri.startsWith('did:web:')) {
    const host = decodeURIComponent(iri.slice('did:web:'.length).split(/[:#]/)[0] ?? '');
    return host === '' ? undefined : host;
  }
  try {
    return new URL(iri).host || undefined;
  } catch {
    return undefined;
  }
}
