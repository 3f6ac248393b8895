// One worker's test file, shared by resources-a.case.ts and resources-b.case.ts: each test makes a file
// and a batch on the shared server while the other's are held there too, and sees only its own.
import { expect, it } from 'vitest';
import OpenAI, { toFile } from 'openai';
import { setupGateway } from '../../../src/vitest.ts';

const url = process.env.SHARED_GATEWAY_URL!;

/** Every object the server holds, with the test that made it (read past the helper). */
async function heldTests(): Promise<(string | undefined)[]> {
  const { stores } = (await (await fetch(`${url}/__admin/resources`)).json()) as { stores: { objects: { test?: string }[] }[] };
  return stores.flatMap((s) => s.objects.map((o) => o.test));
}

export function resources(me: string, other: string): void {
  const gateway = setupGateway({ url });

  it(`worker ${me} sees only its own files and batches`, async () => {
    const client = new OpenAI({ apiKey: 'sk-test', baseURL: `${url}/v1`, maxRetries: 0 });
    const line = { custom_id: me, method: 'POST', url: '/v1/embeddings', body: { model: 'text-embedding-3-small', input: `worker ${me}` } };
    const file = await client.files.create({
      file: await toFile(Buffer.from(`${JSON.stringify(line)}\n`), `${me}.jsonl`),
      purpose: 'batch',
    });
    const batch = await client.batches.create({ input_file_id: file.id, endpoint: '/v1/embeddings', completion_window: '24h' });
    // The other worker's objects are held on the server meanwhile.
    await expect
      .poll(async () => (await heldTests()).some((t) => t?.includes(`resources-${other}.case.ts`)), { timeout: 60_000, interval: 20 })
      .toBe(true);
    expect((await client.files.list()).data.map((f) => f.id)).toEqual([file.id]);
    expect((await client.batches.list()).data.map((b) => b.id)).toEqual([batch.id]);
    const mine = await gateway.resources();
    expect(mine.find((s) => s.name === 'openai.files')!.objects.map((o) => o.id)).toEqual([file.id]);
    expect(mine.find((s) => s.name === 'openai.batches')!.objects.map((o) => o.id)).toEqual([batch.id]);
    // Not reset (so its objects stay) until the other worker has listed its own next to these: it lists
    // only once it has seen these held, so neither resets before the other has seen its objects.
    await expect
      .poll(
        async () => {
          const { requests } = (await (await fetch(`${url}/__admin/requests?path=/v1/batches`)).json()) as {
            requests: { method: string; headers: Record<string, string> }[];
          };
          return requests.some((e) => e.method === 'GET' && e.headers['x-mock-test-id']?.includes(`resources-${other}.case.ts`));
        },
        { timeout: 60_000, interval: 20 },
      )
      .toBe(true);
  });
}
