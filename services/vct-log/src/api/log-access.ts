import { forbidden, notFound } from '@anchor/common/errors';
import type { LogDefinition } from '../log-definitions.js';
import type { TransparencyLog } from '../merkle-log/transparency-log.js';

export interface ServedLog {
  definition: LogDefinition;
  log: TransparencyLog;
  /** The issuer allow-list; undefined when every issuer is accepted. */
  issuers: readonly string[] | undefined;
}

/**
 * The logs of the deployment by alias, and trustbloc/vct's permission check (`hasPermissions`): an unknown
 * alias is 404 `has permissions: alias "X" is not supported`; a log without the permission answers
 * `has permissions: action forbidden for "X"`, with 403, not 401 (no credential can change a log's
 * permissions).
 */
export class LogRegistry {
  private readonly logs = new Map<string, ServedLog>();

  constructor(served: readonly { definition: LogDefinition; log: TransparencyLog }[]) {
    for (const { definition, log } of served) {
      this.logs.set(definition.alias, {
        definition,
        log,
        issuers: definition.issuers.length > 0 ? definition.issuers : undefined,
      });
    }
  }

  all(): ServedLog[] {
    return [...this.logs.values()];
  }

  has(alias: string): boolean {
    return this.logs.has(alias);
  }

  require(alias: string, permission: 'read' | 'write'): ServedLog {
    const served = this.logs.get(alias);
    if (!served) throw notFound(`has permissions: alias ${JSON.stringify(alias)} is not supported`);
    if (!served.definition[permission])
      throw forbidden(`has permissions: action forbidden for ${JSON.stringify(alias)}`);
    return served;
  }
}
