// A tiny chat component, as a frontend would write it: a form, the openai SDK in the browser, the streamed reply.
import OpenAI from 'openai';

export function mountChat(root: HTMLElement, options: { baseURL: string; apiKey: string; model?: string }): void {
  root.innerHTML = '<form><input name="message"><button>Send</button></form><p class="reply"></p>';
  const form = root.querySelector('form')!;
  const reply = root.querySelector<HTMLElement>('.reply')!;
  const client = new OpenAI({ apiKey: options.apiKey, baseURL: options.baseURL, dangerouslyAllowBrowser: true, maxRetries: 0 });
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const content = form.querySelector('input')!.value;
    reply.textContent = '';
    root.dataset.state = 'streaming';
    (async () => {
      const stream = await client.chat.completions.create({
        model: options.model ?? 'gpt-4o-mini',
        messages: [{ role: 'user', content }],
        stream: true,
      });
      for await (const chunk of stream) reply.textContent += chunk.choices[0]?.delta.content ?? '';
      root.dataset.state = 'done';
    })().catch((error: Error) => {
      reply.textContent = error.message;
      root.dataset.state = 'error';
    });
  });
}

/** Test side: types a message, sends it and waits until the reply is complete (or failed); returns the reply text. */
export async function send(root: HTMLElement, message: string): Promise<string> {
  root.querySelector('input')!.value = message;
  root.querySelector('form')!.requestSubmit();
  for (let waited = 0; root.dataset.state === 'streaming'; waited += 20) {
    // A hang detector only, far above any normal reply.
    if (waited > 60_000) throw new Error('the reply never completed');
    await new Promise((r) => setTimeout(r, 20));
  }
  return root.querySelector('.reply')!.textContent!;
}
