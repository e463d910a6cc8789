# Built by node-gyp (scripts/build-addon.cjs, or prebuildify for the prebuilt binaries). Needs
# no CUDA toolkit: native/cuda-types.h declares the driver API types the addon uses, and
# libcuda.so.1 is opened with dlopen at first use, so nothing CUDA is linked.
{
  "variables": {
    "cumem_glibc_baseline%": "<!(node -p \"process.env.CUMEM_GLIBC_BASELINE === '1' ? 1 : 0\")"
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
        "native/binding-native-exchange.cc",
        "native/binding-memory.cc",
        "native/binding-peers.cc",
        "native/binding-pools.cc",
        "native/binding-staging.cc",
        "native/binding-pool-queries.cc",
        "native/binding-compute.cc",
        "native/binding-streams.cc",
        "native/binding-values.cc",
        "native/binding-virtual-memory.cc",
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
      "conditions": [
        # The prebuilt binaries only (scripts/prebuild.cjs sets CUMEM_GLIBC_BASELINE=1): oldest
        # glibc symbol versions (native/glibc-baseline.h); libstdc++'s pre-C++11 string ABI and no
        # sized delete, so the GLIBCXX_3.4.19 / CXXABI_1.3.7 of GCC 4.8 (RHEL 7) suffice; libdl
        # and libpthread named so glibc < 2.34 loads them. See scripts/check-glibc-baseline.mjs.
        ["OS=='linux' and cumem_glibc_baseline==1", {
          "cflags": ["-include", "<(module_root_dir)/native/glibc-baseline.h"],
          "cflags_cc": ["-U_GLIBCXX_USE_CXX11_ABI", "-D_GLIBCXX_USE_CXX11_ABI=0", "-fno-sized-deallocation"],
          "libraries": ["-Wl,--no-as-needed", "-l:libdl.so.2", "-l:libpthread.so.0", "-Wl,--as-needed"]
        }]
      ],
      "xcode_settings": {
        "CLANG_CXX_LANGUAGE_STANDARD": "c++17",
        "GCC_SYMBOLS_PRIVATE_EXTERN": "YES"
      }
    }
  ]
}
