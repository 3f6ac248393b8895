// The no-code test console: pick a model, type a message, send it with a token, watch the reply stream.
// Meant for checking that a token works; it calls the API exactly as any client would.

const escape = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

export function playgroundPage(models: readonly string[]): string {
  const options = models.map((m) => `<option value="${escape(m)}">${escape(m)}</option>`).join('');
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Playground · model-gateway-mock</title>
<style>
  body { font: 16px/1.5 system-ui, sans-serif; max-width: 44rem; margin: 2rem auto; padding: 0 1rem; color: #1b1f24; }
  label { display: block; margin: .75rem 0 .25rem; font-weight: 600; }
  input, select, textarea { width: 100%; box-sizing: border-box; padding: .5rem; font: inherit; border: 1px solid #8c959f; border-radius: 6px; }
  textarea { min-height: 6rem; }
  button { margin-top: 1rem; padding: .5rem 1.25rem; border-radius: 6px; border: 1px solid #1f6feb; background: #1f6feb; color: #fff; font: inherit; cursor: pointer; }
  button:disabled { opacity: .6; cursor: wait; }
  #reply { white-space: pre-wrap; margin-top: 1.5rem; padding: 1rem; min-height: 3rem; background: #f6f8fa; border-radius: 6px; }
  #reply.error { background: #ffebe9; color: #82071e; }
  #usage { color: #57606a; font-size: .875rem; }
</style>
</head>
<body>
<h1>Playground</h1>
<p>Send one message through the OpenAI-compatible API to check that a token works. <a href="/">Home</a></p>
<form id="form">
  <label for="token">Token</label>
  <input id="token" name="token" autocomplete="off" placeholder="sk-…" required>
  <label for="model">Model</label>
  <select id="model" name="model">${options}</select>
  <label for="message">Message</label>
  <textarea id="message" name="message" required placeholder="Say hello"></textarea>
  <button id="send" type="submit">Send</button>
</form>
<div id="reply" role="status" aria-live="polite"></div>
<p id="usage"></p>
<script>
  const form = document.getElementById('form');
  const reply = document.getElementById('reply');
  const usage = document.getElementById('usage');
  const send = document.getElementById('send');
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    reply.textContent = '';
    reply.className = '';
    usage.textContent = '';
    send.disabled = true;
    try {
      const res = await fetch('/v1/chat/completions', {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: 'Bearer ' + form.token.value.trim() },
        body: JSON.stringify({ model: form.model.value, messages: [{ role: 'user', content: form.message.value }], stream: true, stream_options: { include_usage: true } }),
      });
      if (!res.ok) {
        const body = await res.json().catch(() => ({}));
        reply.className = 'error';
        reply.textContent = res.status + ': ' + ((body.error && body.error.message) || res.statusText);
        return;
      }
      const reader = res.body.getReader();
      const decoder = new TextDecoder();
      let buffer = '';
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        buffer += decoder.decode(value, { stream: true });
        const events = buffer.split('\\n\\n');
        buffer = events.pop();
        for (const event of events) {
          const data = event.replace(/^data: /, '');
          if (data === '[DONE]') continue;
          const chunk = JSON.parse(data);
          const delta = chunk.choices[0] && chunk.choices[0].delta.content;
          if (delta) reply.textContent += delta;
          if (chunk.usage) usage.textContent = chunk.usage.prompt_tokens + ' prompt tokens, ' + chunk.usage.completion_tokens + ' completion tokens';
        }
      }
    } catch (error) {
      reply.className = 'error';
      reply.textContent = String(error);
    } finally {
      send.disabled = false;
    }
  });
</script>
</body>
</html>
`;
}
