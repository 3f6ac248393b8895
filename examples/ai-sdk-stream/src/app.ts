// The app: the AI SDK's streamText in the browser, rendering the text as it streams (what useChat does for you).
import { streamText } from 'ai';
import { createOpenAI } from '@ai-sdk/openai';

export function startApp(baseURL: string): void {
  const openai = createOpenAI({ apiKey: 'sk-test', baseURL });
  const form = document.querySelector<HTMLFormElement>('#chat')!;
  const input = document.querySelector<HTMLInputElement>('#message')!;
  const reply = document.querySelector<HTMLElement>('#reply')!;
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    reply.textContent = '';
    reply.dataset.state = 'streaming';
    try {
      const result = streamText({ model: openai('gpt-4o-mini'), prompt: input.value });
      for await (const delta of result.textStream) reply.textContent += delta;
      reply.dataset.usage = String((await result.usage).outputTokens);
      reply.dataset.state = 'done';
    } catch (error) {
      reply.textContent = (error as Error).message;
      reply.dataset.state = 'error';
    }
  });
}
