// Force-included (-include) into every source of the prebuilt binaries only (binding.gyp,
// variable cumem_glibc_baseline=1, set by scripts/prebuild.cjs): binds the few glibc symbols the
// addon calls to their oldest versions, so a binary built on a current glibc loads on glibc 2.17
// (RHEL/CentOS 7, Amazon Linux 2, Ubuntu 20.04). The symbols named here changed version only by
// moving between libraries (dl*, pthread_* into libc in 2.34), by a faster variant (memcpy 2.14:
// the old one is memmove, a superset) or by a 64-bit offset alias (fcntl64 2.28: the addon only
// duplicates a descriptor); the oldest versions behave the same for the way the addon calls them.
// libstdc++ stays a shared library (Node itself links it), built against with its pre-C++11
// string ABI so GCC 4.8's GLIBCXX_3.4.19 / CXXABI_1.3.7 suffice (linking it statically would drag
// in glibc 2.3x symbols from libstdc++.a and libgcc_eh.a). scripts/check-glibc-baseline.mjs fails
// when a newer version appears (a new libc call in native/ must be added here).
#pragma once
#include <features.h>
#if defined(__GLIBC__) && !defined(__ASSEMBLER__)
#if defined(__x86_64__)
#define CUMEM_GLIBC_OLDEST "GLIBC_2.2.5"
#elif defined(__aarch64__)
#define CUMEM_GLIBC_OLDEST "GLIBC_2.17"
#endif
#ifdef CUMEM_GLIBC_OLDEST
__asm__(".symver dlopen,dlopen@" CUMEM_GLIBC_OLDEST);
__asm__(".symver dlsym,dlsym@" CUMEM_GLIBC_OLDEST);
__asm__(".symver dlerror,dlerror@" CUMEM_GLIBC_OLDEST);
__asm__(".symver dlclose,dlclose@" CUMEM_GLIBC_OLDEST);
__asm__(".symver pthread_create,pthread_create@" CUMEM_GLIBC_OLDEST);
__asm__(".symver pthread_join,pthread_join@" CUMEM_GLIBC_OLDEST);
__asm__(".symver memcpy,memcpy@" CUMEM_GLIBC_OLDEST);
__asm__(".symver fcntl64,fcntl@" CUMEM_GLIBC_OLDEST);
#endif
#endif

#if defined(__GLIBC__) && defined(__cplusplus)
#include <cstdio>
#include <cstdlib>
// libstdc++ (GCC >= 11) reads glibc 2.32's __libc_single_threaded to skip atomic reference
// counts of its copy-on-write strings; this hidden stand-in says "not single-threaded" forever,
// so they are always atomic: correct everywhere, and no GLIBC_2.32 symbol is needed.
#define __libc_single_threaded cumem_libc_single_threaded
extern "C" {
__attribute__((weak, visibility("hidden"))) char cumem_libc_single_threaded = 0;
}
// `new T[n]` (node-addon-api's CallbackInfo) calls this CXXABI_1.3.8 (GCC 4.9) function when n
// overflows the size computation. The addon is built without exceptions, where the throw would
// end in std::terminate anyway: this hidden definition does the same, with a message.
extern "C" __attribute__((weak, visibility("hidden"), noreturn)) void __cxa_throw_bad_array_new_length() {
  std::fputs("@cumem/driver-napi: array size overflow in new[]\n", stderr);
  std::abort();
}
#endif
