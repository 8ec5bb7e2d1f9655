import { peerStatusOf, type HttpClient, type RequestOptions } from './http-client.js';

/** What a peer's `GET /healthcheck` said, as the clients of the kms and the node return it. */
export interface PeerHealth {
  /** True when `/healthcheck` answered 200. */
  healthy: boolean;
  status: number;
  /** The health result, when healthy. */
  body?: Record<string, unknown>;
  /** When unhealthy: the status line and the peer's answer as text (which components failed). */
  problem?: string;
}

/**
 * Reads `<baseUrl>/healthcheck`. A peer that answers, whatever its status, resolves; one that does not
 * answer at all (not up yet, unreachable) rejects with the client's retryable error.
 */
export async function readPeerHealth(
  http: HttpClient,
  baseUrl: string,
  options: Omit<RequestOptions, 'method' | 'json' | 'body'> = {},
): Promise<PeerHealth> {
  try {
    const { status, data } = await http.get<Record<string, unknown>>(`${baseUrl}/healthcheck`, options);
    return { healthy: true, status, body: data };
  } catch (error) {
    const status = peerStatusOf(error);
    if (status === undefined) throw error;
    return { healthy: false, status, problem: (error as Error).message };
  }
}
