# Built by node-gyp (scripts/build-addon.cjs). Compiles against the CUDA headers only;
# libcuda.so.1 is opened with dlopen at first use, so nothing CUDA is linked.
{
  "variables": {
    # CUDA_PATH, then CUDA_HOME, then /usr/local/cuda; the script explains when none has headers.
    "cuda_include%": "<!(node scripts/find-cuda.cjs)"
  },
  "targets": [
    {
      "target_name": "cumem_napi",
      "sources": [
        "native/addon.cc",
        "native/binding-copies.cc",
        "native/binding-devices.cc",
        "native/binding-errors.cc",
        "native/binding-managed.cc",
        "native/binding-memory.cc",
        "native/binding-peers.cc",
        "native/binding-pools.cc",
        "native/binding-staging.cc",
        "native/binding-streams.cc",
        "native/binding-values.cc",
        "native/driver-loader.cc",
        "native/staging-engine.cc"
      ],
      "include_dirs": [
        "<!(node -p \"require('node-addon-api').include_dir\")",
        "<(cuda_include)"
      ],
      "defines": [
        "NAPI_VERSION=8",
        "NODE_ADDON_API_DISABLE_CPP_EXCEPTIONS"
      ],
      "cflags!": ["-fno-exceptions"],
      "cflags_cc!": ["-fno-exceptions", "-std=gnu++17", "-std=gnu++14"],
      "cflags_cc": ["-std=c++17", "-O3", "-fno-exceptions", "-fvisibility=hidden", "-Wall", "-Wextra", "-Wno-unused-parameter"],
      "libraries": ["-ldl", "-lpthread"],
      "xcode_settings": {
        "CLANG_CXX_LANGUAGE_STANDARD": "c++17",
        "GCC_SYMBOLS_PRIVATE_EXTERN": "YES"
      }
    }
  ]
}
