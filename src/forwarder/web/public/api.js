// The dashboard's endpoints (routes.ts on the server): JSON in, a thrown Error with the HERMETIC_* code out.
export async function get(path, params) {
  const qs = params.toString();
  const res = await fetch(qs ? `${path}?${qs}` : path, { headers: { accept: 'application/json' } });
  const body = await res.json();
  if (!res.ok) {
    const e = new Error(body.error?.message ?? `HTTP ${res.status}`);
    e.code = body.error?.code ?? 'HERMETIC_WEB_HTTP';
    throw e;
  }
  return body;
}
