// Checks offline.mjs's takeOver with stand-ins for the service worker container and the waiting worker: the page
// reloads once the new worker has taken over, and once only; if it never does, after the wait all the same.
// Usage: node offline_check.mjs → JSON report on stdout.
import { TAKEOVER_MS, takeOver } from "../../docs/assets/javascripts/offline.mjs";

class FakeWorker extends EventTarget {
  constructor(state) {
    super();
    this.state = state;
    this.posted = [];
  }
  postMessage(message) {
    this.posted.push(message);
  }
  become(state) {
    this.state = state;
    this.dispatchEvent(new Event("statechange"));
  }
}

class FakeContainer extends EventTarget {
  controller = null;
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const WAIT = 60;

async function scenario(start, act) {
  const worker = new FakeWorker(start);
  const container = new FakeContainer();
  let reloads = 0;
  let reloadedAt = null;
  const began = Date.now();
  takeOver(worker, { container, reload: () => { reloads += 1; reloadedAt ??= Date.now() - began; }, waitMs: WAIT });
  const atOnce = reloads; // reloaded within the call itself
  await act(worker, container);
  await sleep(5 * WAIT); // well past the wait (a loaded machine fires timers late): a second reload would show now
  return { reloads, atOnce, reloadedAt, posted: worker.posted };
}

const report = {
  takeoverMs: TAKEOVER_MS,
  controllerChange: await scenario("installed", async (worker, container) => {
    await sleep(5);
    container.controller = worker;
    container.dispatchEvent(new Event("controllerchange"));
  }),
  activated: await scenario("installed", async (worker) => {
    await sleep(5);
    worker.become("activating");
    worker.become("activated");
  }),
  bothSignals: await scenario("installed", async (worker, container) => {
    await sleep(5);
    worker.become("activated");
    container.dispatchEvent(new Event("controllerchange"));
  }),
  alreadyActive: await scenario("activated", async () => {}),
  neverTakesOver: await scenario("installed", async () => {}),
};
process.stdout.write(JSON.stringify(report));
