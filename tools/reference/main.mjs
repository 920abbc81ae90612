// The plain way, for the benchmark's comparison: loadPyodide on the main thread,
// the calculator package written to the file system from its wheel, one call.
// The benchmark writes the engine's version into the page (data-engine), and the directory of our build in it
// (data-engine-build: the wheel and its lock, in a directory named by their content).
const engine = new URL(`../assets/engine/${document.body.dataset.engine}/`, import.meta.url);
const build = new URL(`${document.body.dataset.engineBuild}/`, engine);
const { loadPyodide } = await import(new URL("pyodide.mjs", engine).href);
const pyodide = await loadPyodide({ indexURL: engine.href, lockFileURL: new URL("pyodide-lock.json", build).href });
const lock = await (await fetch(new URL("pyodide-lock.json", build))).json();
const wheel = await (await fetch(new URL(lock.packages.calculator.file_name, build))).arrayBuffer();
pyodide.unpackArchive(wheel, "wheel");
const api = pyodide.pyimport("calculator.form.api");
const values = { micro_batch: "4", accumulation_steps: "8", data_parallel_gpus: "1", activation_per_sample_gb: "0,5" };
const answer = JSON.parse(api.handle(JSON.stringify({ calculator: "accumulo-del-gradiente", values })));
document.getElementById("effective_batch").textContent = answer.results.effective_batch;
document.body.dataset.state = "ready";
