import { badRequest, notFound } from '@anchor/common/errors';
import type { ProviderBatchOp, Store } from '@anchor/common/storage';
import { answer, type Handler } from '@anchor/common/http';
import type { NodeContext } from '../context.js';
import type { NodeFeature } from '../feature.js';

export const VC_STORE = 'verifiable';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Witnessed anchor credentials by id (store `verifiable`, keyed by the uuid of `<external>/vc/<uuid>`),
 * served at `GET /vc/<uuid>` (orb.md §1.2).
 */
export class CredentialStore {
  constructor(
    private readonly store: Store<Record<string, unknown>>,
    private readonly vcBase: string,
  ) {}

  /** The key of a credential id minted by this node, or undefined for anyone else's. */
  keyOf(credentialId: string): string | undefined {
    const prefix = `${this.vcBase}/`;
    return credentialId.startsWith(prefix) ? credentialId.slice(prefix.length) : undefined;
  }

  putOp(key: string, credential: object): ProviderBatchOp {
    return { store: VC_STORE, op: 'put', key, value: credential };
  }

  async put(key: string, credential: object): Promise<void> {
    await this.store.put(key, credential as Record<string, unknown>);
  }

  async get(key: string): Promise<Record<string, unknown> | undefined> {
    return this.store.get(key);
  }
}

export interface AnchorCredentialsFeature extends NodeFeature {
  readonly credentials: CredentialStore;
  readonly handlers: { readonly getCredential: Handler };
}

export async function createAnchorCredentialsFeature(ctx: NodeContext): Promise<AnchorCredentialsFeature> {
  const credentials = new CredentialStore(await ctx.storage.open<Record<string, unknown>>(VC_STORE), ctx.urls.vcBase);
  const getCredential: Handler = async (req) => {
    const id = String(req.params['id']);
    if (!UUID.test(id)) throw badRequest(`'${id}' is not an anchor credential id (a UUID)`);
    const credential = await credentials.get(id);
    if (!credential) throw notFound(`no anchor credential ${ctx.urls.vcBase}/${id}`);
    return answer({ json: credential, type: 'application/ld+json' });
  };
  return { name: 'anchor-credentials', credentials, handlers: { getCredential } };
}
