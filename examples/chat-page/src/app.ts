// The app: a chat box calling the OpenAI API from the browser, streaming the reply into the page.
import OpenAI from 'openai';

export function startApp(baseURL: string): void {
  // In a real app the key comes from your backend; the mock accepts sk-test.
  const client = new OpenAI({ apiKey: 'sk-test', baseURL, dangerouslyAllowBrowser: true });
  const form = document.querySelector<HTMLFormElement>('#chat')!;
  const input = document.querySelector<HTMLInputElement>('#message')!;
  const reply = document.querySelector<HTMLElement>('#reply')!;
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    reply.textContent = '';
    reply.dataset.state = 'streaming';
    try {
      const stream = await client.chat.completions.create({
        model: 'gpt-4o-mini',
        messages: [{ role: 'user', content: input.value }],
        stream: true,
      });
      for await (const chunk of stream) reply.textContent += chunk.choices[0]?.delta.content ?? '';
      reply.dataset.state = 'done';
    } catch (error) {
      reply.textContent = (error as Error).message;
      reply.dataset.state = 'error';
    }
  });
}
