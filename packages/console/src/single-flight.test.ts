import { singleFlight } from './single-flight.ts';

test('F1 a reload asked for while one runs runs once after it, however often it was asked', async () => {
  const finishers: Array<() => void> = [];
  let runs = 0;
  const reload = singleFlight(() => {
    runs += 1;
    return new Promise<void>((resolve) => finishers.push(resolve));
  });
  reload();
  reload();
  reload();
  expect(runs).toBe(1);
  finishers[0]!();
  await new Promise((r) => setTimeout(r, 0));
  expect(runs).toBe(2);
  finishers[1]!();
  await new Promise((r) => setTimeout(r, 0));
  expect(runs).toBe(2);
  // A failed run lets the next one go.
  let failed = 0;
  const failing = singleFlight(() => {
    failed += 1;
    return Promise.reject(new Error('offline'));
  });
  failing();
  await new Promise((r) => setTimeout(r, 0));
  failing();
  expect(failed).toBe(2);
});
