// The platform home page: the API base address to copy, and where to go next.

const escape = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

export function homePage(baseUrl: string): string {
  const api = escape(`${baseUrl}/v1`);
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>model-gateway-mock</title>
<style>
  body { font: 16px/1.5 system-ui, sans-serif; max-width: 44rem; margin: 3rem auto; padding: 0 1rem; color: #1b1f24; }
  code, input { font: 15px ui-monospace, monospace; }
  .base { display: flex; gap: .5rem; margin: 1rem 0 2rem; }
  .base input { flex: 1; padding: .5rem; border: 1px solid #8c959f; border-radius: 6px; }
  button { padding: .5rem 1rem; border-radius: 6px; border: 1px solid #1f6feb; background: #1f6feb; color: #fff; cursor: pointer; }
</style>
</head>
<body>
<h1>model-gateway-mock</h1>
<p>A deterministic emulator of an AI model gateway. Point an OpenAI-compatible client at this base address:</p>
<div class="base">
  <input id="base-url" readonly value="${api}" aria-label="API base address">
  <button id="copy" type="button">Copy</button>
</div>
<p>Messages-style clients use <code>${escape(baseUrl)}</code> as their base; generate-content clients use
<code>${escape(baseUrl)}/v1beta</code>. Authenticate with an issued token.</p>
<p><a href="/console/playground">Open the playground</a> · <a href="/__admin/health">Health</a> · <a href="/__admin/requests">Request journal</a></p>
<script>
  document.getElementById('copy').addEventListener('click', async () => {
    const input = document.getElementById('base-url');
    input.select();
    try { await navigator.clipboard.writeText(input.value); } catch { document.execCommand('copy'); }
    document.getElementById('copy').textContent = 'Copied';
  });
</script>
</body>
</html>
`;
}
