/**
 * Reading an anchor's witnessed linkset (as `/cas/<anchor>` and the export serve it): the DIDs it anchors
 * (the content object's items) and who signed its anchor credential (the witnesses). Its parts are
 * `data:application/gzip;base64,` URLs; the page cannot fetch `data:` under its Content-Security-Policy,
 * so they are decoded here. Pure apart from the platform's DecompressionStream, so unit-tested in Node.
 */

export interface AnchorSummary {
  /** The hashlink of the content object (`linkset[0].anchor`). */
  contentHashlink: string;
  /** The node that made the anchor (the linkset's author). */
  author: string | undefined;
  /** The DIDs of the operations in the anchor, in batch order. */
  dids: string[];
  /** The anchor credential's id (`<node>/vc/<uuid>`), when it has one. */
  credentialId: string | undefined;
  issuanceDate: string | undefined;
  /** One per proof on the anchor credential: the signer's key and the log it was asked to log in. */
  witnesses: Witness[];
}

export interface Witness {
  /** The signing key, e.g. `did:web:127.0.0.1%3A8082#vc-key`. */
  verificationMethod: string;
  /** The signer's host read from a did:web key (`127.0.0.1:8082`), else the whole key id. */
  name: string;
  /** The transparency log the witness logged the credential in (`domain`), when named. */
  log: string | undefined;
  created: string | undefined;
}

interface LinkRef {
  href?: unknown;
}
interface LinksetEntry {
  anchor?: unknown;
  author?: LinkRef[];
  original?: LinkRef[];
  replies?: LinkRef[];
  item?: LinkRef[];
}

const DATA_PREFIX = /^data:[^,]*;base64,/;

/** The bytes of a `data:...;base64,` URL, gunzipped when its media type is gzip. */
export async function readDataUrl(url: string): Promise<string> {
  const match = DATA_PREFIX.exec(url);
  if (match === null) throw new Error(`not a base64 data URL: ${url.slice(0, 40)}`);
  const binary = atob(url.slice(match[0].length));
  const bytes = Uint8Array.from(binary, (char) => char.charCodeAt(0));
  if (!match[0].startsWith('data:application/gzip')) return new TextDecoder().decode(bytes);
  const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream('gzip'));
  return new Response(stream).text();
}

function firstEntry(linkset: unknown, what: string): LinksetEntry {
  const entries = (linkset as { linkset?: unknown } | null)?.linkset;
  if (!Array.isArray(entries) || entries.length === 0) throw new Error(`${what} is not a linkset`);
  return entries[0] as LinksetEntry;
}

function hrefs(refs: LinkRef[] | undefined): string[] {
  return (refs ?? []).map((ref) => ref.href).filter((href): href is string => typeof href === 'string');
}

/** The host a did:web key names (`did:web:127.0.0.1%3A8082#vc-key` → `127.0.0.1:8082`), else the key itself. */
export function witnessName(verificationMethod: string): string {
  const match = /^did:web:([^#:]+)/.exec(verificationMethod);
  return match ? decodeURIComponent(match[1]!) : verificationMethod;
}

export async function summarizeAnchor(linkset: unknown): Promise<AnchorSummary> {
  const entry = firstEntry(linkset, 'the anchor');
  const [original] = hrefs(entry.original);
  const dids: string[] = [];
  if (original !== undefined) {
    const content = firstEntry(JSON.parse(await readDataUrl(original)), 'the content object');
    dids.push(...hrefs(content.item));
  }
  const [reply] = hrefs(entry.replies);
  let credential: { id?: unknown; issuanceDate?: unknown; proof?: unknown } = {};
  if (reply !== undefined) credential = JSON.parse(await readDataUrl(reply)) as typeof credential;
  const proofs = Array.isArray(credential.proof) ? credential.proof : credential.proof ? [credential.proof] : [];
  const witnesses = (proofs as Array<Record<string, unknown>>).map((proof) => {
    const verificationMethod = String(proof['verificationMethod'] ?? '');
    return {
      verificationMethod,
      name: witnessName(verificationMethod),
      log: typeof proof['domain'] === 'string' ? proof['domain'] : undefined,
      created: typeof proof['created'] === 'string' ? proof['created'] : undefined,
    };
  });
  return {
    contentHashlink: typeof entry.anchor === 'string' ? entry.anchor : '',
    author: hrefs(entry.author)[0],
    dids,
    credentialId: typeof credential.id === 'string' ? credential.id : undefined,
    issuanceDate: typeof credential.issuanceDate === 'string' ? credential.issuanceDate : undefined,
    witnesses,
  };
}
