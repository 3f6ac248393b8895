// Requests per second of `concurrency` loops each calling `call` back to back, measured for `seconds`
// after a warm-up (the JIT's and the connections').
export async function rate(
  call: () => Promise<unknown>,
  { seconds, concurrency, warmupMs }: { seconds: number; concurrency: number; warmupMs: number },
): Promise<number> {
  const run = async (ms: number) => {
    let done = 0;
    const until = performance.now() + ms;
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (performance.now() < until) {
          await call();
          done++;
        }
      }),
    );
    return done;
  };
  await run(warmupMs);
  const t0 = performance.now();
  const done = await run(seconds * 1000);
  return done / ((performance.now() - t0) / 1000);
}
