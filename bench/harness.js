// harness.js - Times one model: kiln's compiled artifact (through the kiln_bench addon) and a
// reference runtime (ONNX Runtime, or TF.js with the wasm backend) alternating call by call in
// this one process, on the same input. On a shared machine any slowdown then hits both sides
// alike, which separate processes or back-to-back loops cannot promise.
// Needs the packages of bench/package.json on NODE_PATH.
// Usage: node harness.js JOB.json
//   JOB: {kind: 'onnx'|'tfjs', model, addon, dir,
//         kiln: {so, entry, args: [bytes], results: [bytes], arena, order: [feed index per arg]},
//         feeds: [{name, dtype, shape, file}], fetches: [...] (tfjs),
//         warmup, warmupSec, minIters, maxIters, budgetSec, capSec}
//   Writes DIR/kiln_K.bin (kiln's results), DIR/ref_K.bin (the reference's outputs) and
//   DIR/timing.json: {kiln_ms: [...], ref_ms: [...], ref_outputs: [{name, dtype, shape}],
//   ref_version} or {error}.
'use strict';
const fs = require('fs'), path = require('path');

const ARRAYS = { float32: Float32Array, int32: Int32Array, int64: BigInt64Array, uint8: Uint8Array,
                 bool: Uint8Array };

function readArray(feed) {
  const b = fs.readFileSync(feed.file);
  // A fresh ArrayBuffer: typed arrays over it are aligned to their element size.
  const ab = b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength);
  return new ARRAYS[feed.dtype](ab);
}

function writeRaw(file, typed) {
  fs.writeFileSync(file, Buffer.from(typed.buffer, typed.byteOffset, typed.byteLength));
}

// Each reference as {run: async () => outputs [{name, dtype, shape, data}], version}.
async function onnxReference(job, arrays) {
  const ort = require('onnxruntime-node');
  // One thread on both sides, and ORT with every graph optimization it has: its best single-core
  // time is what kiln is measured against.
  const session = await ort.InferenceSession.create(job.model, {
    executionProviders: ['cpu'], intraOpNumThreads: 1, interOpNumThreads: 1,
    executionMode: 'sequential', graphOptimizationLevel: 'all' });
  const feeds = {};
  job.feeds.forEach((f, k) => { feeds[f.name] = new ort.Tensor(f.dtype, arrays[k], f.shape); });
  return {
    version: 'onnxruntime-node ' + ort.env.versions.common,
    run: async () => {
      const res = await session.run(feeds);
      return session.outputNames.map(n => ({ name: n, dtype: res[n].type, shape: res[n].dims.map(Number),
                                              data: res[n].data }));
    },
  };
}

// Reads model.json and its shards from disk (tf.io.IOHandler).
function fileHandler(modelJson) {
  return {
    load: async () => {
      const j = JSON.parse(fs.readFileSync(modelJson, 'utf8'));
      const dir = path.dirname(modelJson), specs = [], bufs = [];
      for (const g of j.weightsManifest || []) {
        specs.push(...g.weights);
        for (const p of g.paths) bufs.push(fs.readFileSync(path.join(dir, p)));
      }
      const all = Buffer.concat(bufs);
      return { modelTopology: j.modelTopology, format: j.format, signature: j.signature,
               userDefinedMetadata: j.userDefinedMetadata, weightSpecs: specs,
               weightData: all.buffer.slice(all.byteOffset, all.byteOffset + all.byteLength) };
    },
  };
}

async function tfjsReference(job, arrays) {
  const tf = require('@tensorflow/tfjs-core');
  const wasm = require('@tensorflow/tfjs-backend-wasm');
  const tfconv = require('@tensorflow/tfjs-converter');
  // One thread: the non-threaded SIMD binary (no worker pool at all), and setThreadsCount(1) in
  // case a build picks the threaded one anyway. SIMD stays on (detected).
  tf.env().set('WASM_HAS_MULTITHREAD_SUPPORT', false);
  if (wasm.setThreadsCount) wasm.setThreadsCount(1);
  await tf.setBackend('wasm');
  await tf.ready();
  const simd = await tf.env().getAsync('WASM_HAS_SIMD_SUPPORT');
  const model = await tfconv.loadGraphModel(fileHandler(job.model));
  const feeds = {};
  // TF.js holds DT_UINT8 (an image input) as int32.
  const asTfjs = (f, a) => f.dtype === 'uint8' ? tf.tensor(Int32Array.from(a), f.shape, 'int32')
                                               : tf.tensor(a, f.shape, f.dtype === 'bool' ? 'bool' : f.dtype);
  job.feeds.forEach((f, k) => { feeds[f.name] = asTfjs(f, arrays[k]); });
  let needsAsync = false;
  try {
    tf.dispose(model.execute(feeds, job.fetches));
  } catch (e) {
    if (!/executeAsync|dynamic|control flow/i.test(e.message)) throw e;
    needsAsync = true;
  }
  return {
    version: `tfjs ${tf.version_core} wasm (simd ${simd}, threads ${wasm.getThreadsCount ? wasm.getThreadsCount() : 1})`,
    run: async () => {
      // A graph with control flow or data-dependent shapes (NonMaxSuppression, Where) runs only
      // through executeAsync, op by op.
      let outs = needsAsync ? await model.executeAsync(feeds, job.fetches)
                            : model.execute(feeds, job.fetches);
      if (!Array.isArray(outs)) outs = [outs];
      // dataSync: the time includes reading the results back, as kiln's does (it writes them).
      const res = outs.map((t, k) => ({ name: job.fetches[k], dtype: t.dtype, shape: t.shape,
                                        data: t.dataSync() }));
      tf.dispose(outs);
      return res;
    },
  };
}

function median(xs) {
  const s = [...xs].sort((a, b) => a - b), n = s.length;
  return n % 2 ? s[(n - 1) / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
}

async function main() {
  const job = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'));
  const out = path.join(job.dir, 'timing.json');
  try {
    const kb = require(job.addon);
    const arrays = job.feeds.map(readArray);
    const k = job.kiln;
    const handle = kb.load(k.so, k.entry, k.args, k.results, k.arena);
    const kilnArgs = k.order.map(i => arrays[i]);
    const ref = await (job.kind === 'onnx' ? onnxReference : tfjsReference)(job, arrays);
    const now = () => process.hrtime.bigint();
    const ms = (a, b) => Number(b - a) / 1e6;

    // One alternating step: kiln, then the reference; returns both times in ms.
    let last = null;
    const step = async () => {
      const t0 = now();
      const status = kb.run(handle, kilnArgs);
      const t1 = now();
      last = await ref.run();
      const t2 = now();
      if (status !== 0) throw new Error(`kiln's entry returned ${status}`);
      return [ms(t0, t1), ms(t1, t2)];
    };
    // Warm-up (page faults, caches, lazy initialization, V8 tiering up the JS side): at least
    // `warmup` pairs and warmupSec seconds (ONNX Runtime was seen to run several times slower
    // for its first ~70 calls), but at most capSec/3 for a slow model.
    const w0 = now();
    for (let i = 0; ; ++i) {
      const spent = ms(w0, now()) / 1000;
      if (i >= 2 && spent >= job.capSec / 3) break;
      if (i >= job.warmup && spent >= job.warmupSec) break;
      await step();
    }
    const kilnMs = [], refMs = [];
    const s0 = now();
    // At least minIters, until the budget is spent; a model slow enough to need more than capSec
    // for minIters stops at capSec (and at least 5 iterations).
    for (;;) {
      const [a, b] = await step();
      kilnMs.push(a), refMs.push(b);
      const spent = ms(s0, now()) / 1000, n = kilnMs.length;
      if (n >= job.maxIters) break;
      if (n >= job.minIters && spent >= job.budgetSec) break;
      if (n >= 5 && spent >= job.capSec) break;
    }
    kb.results(handle).forEach((ab, i) => fs.writeFileSync(path.join(job.dir, `kiln_${i}.bin`), Buffer.from(ab)));
    const refOutputs = last.map((o, i) => {
      writeRaw(path.join(job.dir, `ref_${i}.bin`), o.data);
      return { name: o.name, dtype: o.dtype, shape: o.shape };
    });
    fs.writeFileSync(out, JSON.stringify({
      kiln_ms: kilnMs, ref_ms: refMs, kiln_median_ms: median(kilnMs), ref_median_ms: median(refMs),
      ref_outputs: refOutputs, ref_version: ref.version }));
  } catch (e) {
    fs.writeFileSync(out, JSON.stringify({ error: String(e && e.message || e) }));
  }
}

main().then(() => process.exit(0));
