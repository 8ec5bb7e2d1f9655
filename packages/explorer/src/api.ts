/** Reading a node's public endpoints: JSON or a one-line reason, never a thrown stack trace on the page. */
export type Fetched<T> = { ok: true; value: T } | { ok: false; status: number; message: string };

/** The message of a node's `{"message"}` error body, or its status line when the body says nothing. */
async function errorMessage(response: Response): Promise<string> {
  try {
    const body = (await response.json()) as { message?: unknown };
    if (typeof body.message === 'string') return body.message;
  } catch {
    // not JSON: the status says it
  }
  return `${response.status} ${response.statusText}`;
}

export async function getJson<T>(url: string): Promise<Fetched<T>> {
  let response: Response;
  try {
    response = await fetch(url, { headers: { accept: 'application/json' } });
  } catch (error) {
    return { ok: false, status: 0, message: `${new URL(url).origin} does not answer (${String(error)})` };
  }
  if (!response.ok) return { ok: false, status: response.status, message: await errorMessage(response) };
  try {
    return { ok: true, value: (await response.json()) as T };
  } catch {
    return { ok: false, status: response.status, message: `${url} did not answer JSON` };
  }
}
