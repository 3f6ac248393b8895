// What the control plane and the pages answer when a request fails on the way (a malformed cookie or
// parameter, a body that is not JSON, a bug): the status and a message, never a stack or a file path.
// express's own last handler answered an HTML page with both.

/** The status and words for a failure: a client's 4xx says what went wrong; a 5xx says only that something did. */
export function failureOf(error: unknown): { status: number; message: string } {
  const given = error as { status?: unknown; statusCode?: unknown; message?: unknown; type?: unknown; name?: unknown };
  const raw = Number(given?.status ?? given?.statusCode);
  const status = Number.isInteger(raw) && raw >= 400 && raw <= 599 ? raw : 500;
  if (status >= 500) {
    const name = typeof given?.name === 'string' ? given.name : 'Error';
    return { status, message: `model-gateway-mock failed on this request (${name}); the server's output says more.` };
  }
  const message = typeof given?.message === 'string' ? given.message : 'Bad request.';
  return {
    status,
    message:
      given?.type === 'entity.parse.failed'
        ? `The body is not JSON (the control plane reads every body as JSON, whatever its Content-Type): ${message}`
        : message,
  };
}
