import { badRequest } from '@anchor/common/errors';
import { ACCEPT_LIST_UPDATE } from '../schemas/index.js';
import { KeyedMutex } from '@anchor/common/concurrency';
import {
  ACCEPT_LIST_TYPES,
  type AcceptListEntry,
  type AcceptLists,
  type AcceptListType,
} from '../runtime-config/accept-lists.js';
import { answer, jsonBody, type Handler } from '@anchor/common/http';

/**
 * `GET|POST <service path>/acceptlist` (spec System endpoints, orb.md §1.2): who may follow this node and who
 * may invite it to witness, used when `--follow-auth-policy` / `--invite-witness-auth-policy` is
 * `accept-list`. Token-only (a valid HTTP signature is not enough), as in Orb.
 *
 *   GET                 → [{type, url: [...]}, ...] for every type
 *   GET ?type=follow    → {type, url: [...]}; an unknown type is a 400
 *   POST [{type, add?, remove?}, ...] → adds then removes per entry, in order; idempotent. The whole body
 *        is validated first, so one bad entry changes nothing. Answers the lists as GET does.
 */
export function acceptListHandlers(acceptLists: AcceptLists): { get: Handler; post: Handler } {
  // Updates are read-modify-write of one stored list: serialise them in this instance.
  const updates = new KeyedMutex();

  const get: Handler = async (req) => {
    const type = req.query.get('type');
    if (type === null) return answer({ json: await acceptLists.all() });
    const listType = acceptListType(type);
    return answer({ json: { type: listType, url: await acceptLists.get(listType) } satisfies AcceptListEntry });
  };

  const post: Handler = async (req) => {
    const changes = jsonBody(req, ACCEPT_LIST_UPDATE, 'accept list update');
    await updates.run('accept-lists', async () => {
      for (const change of changes) await acceptLists.update(change.type, change);
    });
    return answer({ json: await acceptLists.all() });
  };
  return { get, post };
}

function acceptListType(type: string): AcceptListType {
  if (!(ACCEPT_LIST_TYPES as readonly string[]).includes(type)) {
    throw badRequest(`unknown accept list type '${type}'; use one of ${ACCEPT_LIST_TYPES.join(', ')}`);
  }
  return type as AcceptListType;
}
