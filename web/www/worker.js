// Runs the WebAssembly exports off the page's thread: {id, op, query[, index, seed]} in,
// {id, op, result, ms} out (result: the parsed JSON of the export).
import init, * as bfopt from "./pkg/bfopt_web.js";

const ready = init();

self.onmessage = async (event) => {
  await ready;
  const { id, op, query, index, seed } = event.data;
  const start = performance.now();
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
