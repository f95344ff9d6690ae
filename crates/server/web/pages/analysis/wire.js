// The analysis board's requests whose body is a position string: POST /api/position (its moves
// and their traces) and POST /api/position/proof.

/** A POST of a JSON text, answered as api() answers: {ok, status, data}. The position
 * endpoints need no session, so no CSRF token. */
export async function postText(path, text) {
  let resp;
  try {
    resp = await fetch('/api' + path, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: text });
  } catch (e) {
    return { ok: false, status: 0, data: { error: 'network', message: String(e) } };
  }
  const data = await resp.json().catch(() => ({}));
  if (!data.retry_after && resp.headers.get('retry-after')) data.retry_after = Number(resp.headers.get('retry-after'));
  return { ok: resp.ok, status: resp.status, data };
}
