/*
 * The all-pairs peer-copy row of bench/c/multi.c (included there: one program per suite):
 * `multi.peerCopyMatrix`, a 256 MiB cuMemcpyAsync from a pool buffer of device i to one of
 * device j for every ordered pair i != j, on device i's own non-blocking stream, every pool
 * accessible by every other device. Variant "<i>to<j>" is each pair's GB/s; the row's value is
 * the slowest pair's. The first MAX_DEVICES devices (multi.c; the variants must fit
 * row_t.variants).
 */
static CUmemoryPool matrix_pools[MAX_DEVICES];

typedef struct {
  CUdeviceptr dst, src;
  CUstream stream;
} matrix_copy;

static CUresult matrix_batch(void *state, long n) {
  matrix_copy *s = (matrix_copy *)state;
  for (long i = 0; i < n; i++) {
    CUresult e = p_cuMemcpyAsync(s->dst, s->src, COPY_BYTES, s->stream);
    if (e != CUDA_SUCCESS) return e;
  }
  return p_cuStreamSynchronize(s->stream);
}

/* A pool of every device, each accessible by every other device; contexts and streams exist. */
static CUresult matrix_setup(int count) {
  for (int d = 0; d < count; d++) {
    CUresult e = p_cuCtxSetCurrent(contexts[d]);
    if (e == CUDA_SUCCESS) e = make_pool(&matrix_pools[d], d, 0);
    if (e != CUDA_SUCCESS) return e;
    for (int other = 0; other < count; other++) {
      if (other == d) continue;
      CUmemAccessDesc access;
      memset(&access, 0, sizeof access);
      access.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
      access.location.id = other;
      access.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
      if ((e = p_cuMemPoolSetAccess(matrix_pools[d], &access, 1)) != CUDA_SUCCESS) return e;
    }
  }
  return p_cuCtxSetCurrent(contexts[0]);
}

static void row_peer_matrix(row_t *r, int count) {
  CUdeviceptr src = 0, dst = 0;
  int from = 0, to = 0;
  double slowest = 0;
  CK(matrix_setup(count));
  for (from = 0; from < count; from++) {
    for (to = 0; to < count; to++) {
      if (to == from) continue;
      unsigned char value = (unsigned char)(0x41 + from * MAX_DEVICES + to);
      row_t pair;
      memset(&pair, 0, sizeof pair);
      CK(pool_allocate(&src, COPY_BYTES, matrix_pools[from], from));
      CK(pool_allocate(&dst, COPY_BYTES, matrix_pools[to], to));
      CK(fill_on_owner(src, value, COPY_BYTES, from));
      CK(fill_on_owner(dst, 0, COPY_BYTES, to));
      CK(p_cuCtxSetCurrent(contexts[from]));
      {
        matrix_copy s = {dst, src, own_streams[from]};
        CK(matrix_batch(&s, 1));
        if (!holds(dst, COPY_BYTES, value, to)) {
          row_failf(r, "the copy from device %d to %d did not arrive", from, to);
          goto done;
        }
        CK(p_cuCtxSetCurrent(contexts[from]));
        CK(measure_bandwidth(&pair, matrix_batch, &s, (double)COPY_BYTES, 8, 7));
      }
      {
        char name[16];
        snprintf(name, sizeof name, "%dto%d", from, to);
        row_variant(r, name, pair.value);
      }
      if (!r->has_value || pair.value < slowest) {
        slowest = pair.value;
        r->value = pair.value;
        r->nsamples = pair.nsamples;
        memcpy(r->samples, pair.samples, sizeof r->samples);
        r->has_value = 1;
      }
      pool_free(src, from);
      pool_free(dst, to);
      src = dst = 0;
    }
  }
done:
  if (src) pool_free(src, from);
  if (dst) pool_free(dst, to);
  p_cuCtxSetCurrent(contexts[0]);
  for (int d = 0; d < count; d++)
    if (matrix_pools[d]) p_cuMemPoolDestroy(matrix_pools[d]);
}
