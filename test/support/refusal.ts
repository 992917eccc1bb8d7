/** The error a promise is rejected with; a promise that resolves fails the test. */
export async function refusal<E extends Error = Error>(p: Promise<unknown>): Promise<E> {
  try {
    await p;
  } catch (e) {
    return e as E;
  }
  throw new Error('expected a refusal');
}
