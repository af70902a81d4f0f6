// kiln_bench.c - A Node-API addon that runs a kiln-compiled model inside node, so that the
// benchmark can alternate kiln and a JavaScript-hosted reference call by call in one process.
//
//   const kb = require('kiln_bench.node');
//   const h = kb.load('model.so', 'model_run', [argBytes...], [resultBytes...], arenaBytes);
//   kb.run(h, [typedArray...]);   // synchronous: one NAME_run call, returns its status
//   kb.results(h);                // [ArrayBuffer...]: copies of the result buffers of the last run
//
// model.so is `gcc -shared model.o` (kiln's host objects are position independent). The addon
// owns the result buffers and the arena (64-byte aligned, allocated once at load), so a timed
// run() allocates nothing. Built by bench/addon/build.sh with gcc against node-api-headers.
#define _POSIX_C_SOURCE 200809L
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <node_api.h>

typedef int (*entry_fn)(const void* const* args, void* const* results, void* arena);

typedef struct {
  void* lib;
  entry_fn entry;
  uint32_t num_args, num_results;
  size_t* arg_sizes;
  size_t* result_sizes;
  void** results;
  const void** args;  // filled by each run() from the caller's typed arrays
  void* arena;
} model;

#define CHECK(env, call)                                          \
  do {                                                            \
    if ((call) != napi_ok) {                                      \
      napi_throw_error((env), NULL, "kiln_bench: " #call " failed"); \
      return NULL;                                                \
    }                                                             \
  } while (0)

static napi_value fail(napi_env env, const char* msg) {
  napi_throw_error(env, NULL, msg);
  return NULL;
}

// Reads a JS array of numbers into a malloc'd size_t array.
static size_t* read_sizes(napi_env env, napi_value arr, uint32_t* n) {
  if (napi_get_array_length(env, arr, n) != napi_ok) return NULL;
  size_t* out = calloc(*n ? *n : 1, sizeof(size_t));
  for (uint32_t i = 0; i < *n; ++i) {
    napi_value v;
    int64_t x = 0;
    napi_get_element(env, arr, i, &v);
    napi_get_value_int64(env, v, &x);
    out[i] = (size_t)x;
  }
  return out;
}

static void* aligned(size_t bytes) {
  void* p = NULL;
  // 64: NAME_ARENA_ALIGN; results get the same so that no kernel ever sees a misaligned buffer.
  if (posix_memalign(&p, 64, bytes ? bytes : 64)) return NULL;
  memset(p, 0, bytes ? bytes : 64);
  return p;
}

static void finalize(napi_env env, void* data, void* hint) {
  (void)env, (void)hint;
  model* m = data;
  for (uint32_t i = 0; i < m->num_results; ++i) free(m->results[i]);
  free(m->results), free(m->args), free(m->arg_sizes), free(m->result_sizes), free(m->arena);
  if (m->lib) dlclose(m->lib);
  free(m);
}

static napi_value load(napi_env env, napi_callback_info info) {
  size_t argc = 5;
  napi_value argv[5];
  CHECK(env, napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  if (argc != 5) return fail(env, "load(path, entry, argSizes, resultSizes, arenaSize)");
  char path[4096], name[512];
  size_t len;
  CHECK(env, napi_get_value_string_utf8(env, argv[0], path, sizeof path, &len));
  CHECK(env, napi_get_value_string_utf8(env, argv[1], name, sizeof name, &len));
  int64_t arena_bytes;
  CHECK(env, napi_get_value_int64(env, argv[4], &arena_bytes));

  // RTLD_LOCAL: several models (each with its own NAME_run) may be loaded side by side.
  void* lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!lib) return fail(env, dlerror());
  entry_fn entry = (entry_fn)dlsym(lib, name);
  if (!entry) {
    dlclose(lib);
    return fail(env, "kiln_bench: entry symbol not found in the shared library");
  }
  model* m = calloc(1, sizeof *m);
  m->lib = lib, m->entry = entry;
  m->arg_sizes = read_sizes(env, argv[2], &m->num_args);
  m->result_sizes = read_sizes(env, argv[3], &m->num_results);
  m->args = calloc(m->num_args ? m->num_args : 1, sizeof(void*));
  m->results = calloc(m->num_results ? m->num_results : 1, sizeof(void*));
  for (uint32_t i = 0; i < m->num_results; ++i) m->results[i] = aligned(m->result_sizes[i]);
  m->arena = aligned((size_t)arena_bytes);
  napi_value handle;
  CHECK(env, napi_create_external(env, m, finalize, NULL, &handle));
  return handle;
}

static napi_value run(napi_env env, napi_callback_info info) {
  size_t argc = 2;
  napi_value argv[2];
  CHECK(env, napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  model* m;
  CHECK(env, napi_get_value_external(env, argv[0], (void**)&m));
  for (uint32_t i = 0; i < m->num_args; ++i) {
    napi_value v;
    CHECK(env, napi_get_element(env, argv[1], i, &v));
    napi_typedarray_type type;
    size_t length, offset;
    void* data;
    napi_value ab;
    CHECK(env, napi_get_typedarray_info(env, v, &type, &length, &data, &ab, &offset));
    size_t bytes = 0;
    // Element size from the type, to check the caller gave the manifest's byte count.
    switch (type) {
      case napi_int8_array: case napi_uint8_array: case napi_uint8_clamped_array: bytes = length; break;
      case napi_int16_array: case napi_uint16_array: bytes = 2 * length; break;
      case napi_int32_array: case napi_uint32_array: case napi_float32_array: bytes = 4 * length; break;
      default: bytes = 8 * length; break;
    }
    if (bytes != m->arg_sizes[i]) return fail(env, "kiln_bench: an argument has the wrong byte size");
    m->args[i] = data;
  }
  int status = m->entry(m->args, m->results, m->arena);
  napi_value out;
  CHECK(env, napi_create_int32(env, status, &out));
  return out;
}

static napi_value results(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1];
  CHECK(env, napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  model* m;
  CHECK(env, napi_get_value_external(env, argv[0], (void**)&m));
  napi_value arr;
  CHECK(env, napi_create_array_with_length(env, m->num_results, &arr));
  for (uint32_t i = 0; i < m->num_results; ++i) {
    void* dst;
    napi_value ab;
    CHECK(env, napi_create_arraybuffer(env, m->result_sizes[i], &dst, &ab));
    memcpy(dst, m->results[i], m->result_sizes[i]);
    CHECK(env, napi_set_element(env, arr, i, ab));
  }
  return arr;
}

static napi_value init(napi_env env, napi_value exports) {
  napi_property_descriptor props[] = {
      {"load", NULL, load, NULL, NULL, NULL, napi_enumerable, NULL},
      {"run", NULL, run, NULL, NULL, NULL, napi_enumerable, NULL},
      {"results", NULL, results, NULL, NULL, NULL, napi_enumerable, NULL},
  };
  napi_define_properties(env, exports, sizeof props / sizeof *props, props);
  return exports;
}

NAPI_MODULE(NODE_GYP_MODULE_NAME, init)
