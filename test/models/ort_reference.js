// ort_reference.js - Runs a batch of ONNX models with onnxruntime-node (CPU EP) and saves their outputs (reference values for kiln tests).
// Needs onnxruntime-node 1.30.0 (test/models/package.json, installed with ONNXRUNTIME_NODE_INSTALL=skip) on NODE_PATH.
// Usage: node ort_reference.js JOBS.json
//   JOBS.json: [{"model": M.onnx, "dir": D, "feeds": [{"name", "dtype", "shape", "file"}]}, ...]
//   Feed files are raw little-endian (float32, int32, int64, uint8). Writes D/output_K.bin in the session's output order and
//   D/result.json ({"outputs": [{"name","dtype","shape"}]} or {"error": msg}).
'use strict';
const fs = require('fs'), path = require('path');
const ort = require('onnxruntime-node');

const ARRAYS = { float32: Float32Array, int32: Int32Array, int64: BigInt64Array, uint8: Uint8Array, bool: Uint8Array };

function readFeed(feed) {
  const b = fs.readFileSync(feed.file);
  const ab = b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength);
  const Arr = ARRAYS[feed.dtype];
  if (!Arr) throw new Error('unsupported feed dtype ' + feed.dtype);
  return new ort.Tensor(feed.dtype, new Arr(ab), feed.shape);
}

async function runJob(job) {
  // One thread and no graph rewrites beyond the basic ones keep the reference deterministic.
  const session = await ort.InferenceSession.create(job.model, {
    executionProviders: ['cpu'], intraOpNumThreads: 1, interOpNumThreads: 1, graphOptimizationLevel: 'basic' });
  const feeds = {};
  for (const f of job.feeds) feeds[f.name] = readFeed(f);
  const res = await session.run(feeds);
  const result = { outputs: [] };
  session.outputNames.forEach((name, k) => {
    const t = res[name], d = t.data;
    fs.writeFileSync(path.join(job.dir, `output_${k}.bin`), Buffer.from(d.buffer, d.byteOffset, d.byteLength));
    result.outputs.push({ name, dtype: t.type, shape: t.dims.map(Number) });
  });
  await session.release();
  return result;
}

(async () => {
  const jobs = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'));
  for (const job of jobs) {
    let result;
    try { result = await runJob(job); } catch (e) { result = { error: String(e && e.message || e) }; }
    result.ort = ort.env.versions;
    fs.writeFileSync(path.join(job.dir, 'result.json'), JSON.stringify(result));
  }
})().catch(e => { console.error('ort_reference: ' + (e && e.stack || e)); process.exit(1); });
