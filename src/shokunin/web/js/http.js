// JSON over HTTP as every view's API module uses it: a failure is an Error whose message is
// the server's `error` text (the JSON error form {"error", "code"}), with `code` and `status`.

/** The message of the error form (FastAPI's {"detail"} as a fallback). */
function errorText(body) {
  if (typeof body.error === "string") return body.error;
  if (typeof body.detail === "string") return body.detail;
  if (Array.isArray(body.detail)) return body.detail.map((d) => d.msg).join("; ");
  return null;
}

/** fetch(url, init) and its JSON body (null for 204 No Content). */
export async function api(url, init = {}) {
  let response;
  try {
    response = await fetch(url, init);
  } catch (error) {
    throw new Error(`${url}: ${error.message}`);
  }
  if (response.status === 204) return null;
  const body = await response.json().catch(() => ({}));
  if (!response.ok) {
    throw Object.assign(new Error(errorText(body) ?? `${response.status} ${response.statusText}`),
      { code: body.code ?? null, status: response.status });
  }
  return body;
}

/** A request with a JSON body. */
export const send = (method, url, body) => api(url, {
  method,
  headers: { "Content-Type": "application/json" },
  body: JSON.stringify(body ?? {}),
});
