# Built by node-gyp (scripts/build-addon.cjs, or prebuildify for the prebuilt binaries). Needs
# no CUDA toolkit: native/cuda-types.h declares the driver API types the addon uses, and
# libcuda.so.1 is opened with dlopen at first use, so nothing CUDA is linked.
{
  "targets": [
    {
      "target_name": "cumem_napi",
      "sources": [
        "native/addon.cc",
        "native/binding-copies.cc",
        "native/binding-devices.cc",
        "native/binding-errors.cc",
        "native/binding-managed.cc",
        "native/binding-native-exchange.cc",
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
        "<!(node -p \"require('node-addon-api').include_dir\")"
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
