// Runs the WebAssembly exports off the page's thread: {id, op, query[, index, seed]} in,
// {id, op, result, ms} out (result: the parsed JSON of the export); during a simulation
// also {id, op: "progress", done, total, label} after each epoch.
import init, * as bfopt from "./pkg/bfopt_web.js";

const ready = init();
let current = null; // the id of the request being computed

// Called by the simulation after each epoch: {id, op: "progress", done, total, label}.
globalThis.bfoptProgress = (done, total, label) => {
  self.postMessage({ id: current, op: "progress", done, total, label });
};

self.onmessage = async (event) => {
  await ready;
  const { id, op, query, index, seed } = event.data;
  const start = performance.now();
  current = id;
  let text;
  try {
    if (op === "simulate") text = bfopt.simulate(query, index, BigInt(seed));
    else if (op === "cycle") text = bfopt.cycle(query, index);
    else text = bfopt[op](query);
  } catch (e) {
    text = JSON.stringify({ errors: { requirement: `internal error: ${e}` } });
  }
  self.postMessage({ id, op, result: JSON.parse(text), ms: performance.now() - start });
};
