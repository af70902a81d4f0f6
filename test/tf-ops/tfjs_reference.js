// tfjs_reference.js - Runs a batch of TF.js graph models on the cpu backend and saves their outputs (reference values for kiln tests).
// Needs @tensorflow/tfjs-core, tfjs-backend-cpu, tfjs-converter 4.22.0 (test/models/package.json) on NODE_PATH.
// Usage: node tfjs_reference.js JOBS.json
//   JOBS.json: [{"dir": D, "model_dir": M, "feeds": [{"name", "dtype", "shape", "file"}], "fetches": ["y", "z:1"]}, ...]
//   M (default D) holds model.json + its weight shards; each feed file is raw little-endian (float32, int32, uint8 for bool, or uint8 for an image read as int32).
//   Writes D/output_K.bin (raw) and D/result.json ({"outputs": [{"name","dtype","shape"}]} or {"error": msg}).
'use strict';
const fs = require('fs'), path = require('path');
const tf = require('@tensorflow/tfjs-core');
require('@tensorflow/tfjs-backend-cpu');
const tfconv = require('@tensorflow/tfjs-converter');

// A tf.io.IOHandler reading model.json and its shards from the local filesystem.
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

function readFeed(feed) {
  const b = fs.readFileSync(feed.file);
  const ab = b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength);
  if (feed.dtype === 'float32') return tf.tensor(new Float32Array(ab), feed.shape, 'float32');
  if (feed.dtype === 'int32') return tf.tensor(new Int32Array(ab), feed.shape, 'int32');
  if (feed.dtype === 'bool') return tf.tensor(new Uint8Array(ab), feed.shape, 'bool');
  // TF.js holds DT_UINT8 (an image input) as int32.
  if (feed.dtype === 'uint8') return tf.tensor(Int32Array.from(new Uint8Array(ab)), feed.shape, 'int32');
  throw new Error('unsupported feed dtype ' + feed.dtype);
}

async function runJob(job) {
  const model = await tfconv.loadGraphModel(fileHandler(path.join(job.model_dir || job.dir, 'model.json')));
  const feeds = {};
  for (const f of job.feeds) feeds[f.name] = readFeed(f);
  let outs;
  try {
    outs = model.execute(feeds, job.fetches);
  } catch (e) {
    if (!/executeAsync|dynamic|control flow/i.test(e.message)) throw e;
    outs = await model.executeAsync(feeds, job.fetches);
  }
  if (!Array.isArray(outs)) outs = [outs];
  const result = { outputs: [] };
  for (let k = 0; k < outs.length; k++) {
    // data() may hand back another array type than the dtype says (a cast from bool gives a Uint8Array).
    const Arr = { float32: Float32Array, int32: Int32Array, bool: Uint8Array }[outs[k].dtype];
    if (!Arr) throw new Error(`fetch ${job.fetches[k]}: unsupported dtype ${outs[k].dtype}`);
    const raw = await outs[k].data();
    const d = raw instanceof Arr ? raw : Arr.from(raw);
    const bytes = Buffer.from(d.buffer, d.byteOffset, d.byteLength);
    fs.writeFileSync(path.join(job.dir, `output_${k}.bin`), bytes);
    result.outputs.push({ name: job.fetches[k], dtype: outs[k].dtype, shape: outs[k].shape });
  }
  tf.dispose(outs); tf.dispose(Object.values(feeds)); model.dispose();
  return result;
}

(async () => {
  await tf.setBackend('cpu'); await tf.ready();
  const jobs = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'));
  for (const job of jobs) {
    let result;
    try { result = await runJob(job); } catch (e) { result = { error: String(e && e.message || e) }; }
    result.tfjs = tf.version_core; result.backend = tf.getBackend();
    fs.writeFileSync(path.join(job.dir, 'result.json'), JSON.stringify(result));
  }
})().catch(e => { console.error('tfjs_reference: ' + (e && e.stack || e)); process.exit(1); });
