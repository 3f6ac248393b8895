// Run as its own process: imports the built package fresh, answers the requests given as a JSON array
// in argv[2] in-process (msw's setupServer), one after another, and prints their bodies as a JSON array.
import { setupServer } from 'msw/node';
import { createGateway } from '../../dist/src/index.js';

const requests = JSON.parse(process.argv[2]) as { path: string; body: unknown }[];
const server = setupServer(...createGateway().handlers);
server.listen();
const bodies: string[] = [];
for (const { path, body } of requests) {
  const res = await fetch(`https://cold.test${path}`, {
    method: 'POST',
    headers: { authorization: 'Bearer sk-test', 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  bodies.push(`${res.status} ${await res.text()}`);
}
server.close();
process.stdout.write(JSON.stringify(bodies));
