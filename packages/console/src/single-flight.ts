/**
 * `run` at most once at a time: a call while it runs asks for one more run after it, however many calls came
 * meanwhile. A page reloads on every change of the fleet, and a large fleet's list of many pages takes longer
 * to load than changes take to come: started on each, reloads would pile up on the Hub.
 */
export function singleFlight(run: () => Promise<void>): () => void {
  let running = false;
  let again = false;
  const start = (): void => {
    if (running) {
      again = true;
      return;
    }
    running = true;
    again = false;
    void run()
      .catch(() => {})
      .finally(() => {
        running = false;
        if (again) start();
      });
  };
  return start;
}
