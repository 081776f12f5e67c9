/* The SpMV benchmarks' shared harness: see bench_common.h. */
#include "bench_common.h"
#include <math.h>
extern "C" {
#include "matgen.h"
}

/* ------------------------------------------------------------------------ */
/* device memory of the benchmarks, on the launchers' stream */
static PetscErrorCode BenchCUDAStream(cudaStream_t *stream)
{
  void *s = NULL;

  PetscFunctionBegin;
  PetscCall(GpuMatsCUDAGetStream(&s));
  *stream = (cudaStream_t)s;
  PetscFunctionReturn(0);
}

PetscErrorCode BenchCUDAMalloc(void **ptr, size_t bytes, const char *what)
{
  cudaError_t cerr;

  PetscFunctionBegin;
  *ptr = NULL;
  if (!bytes) PetscFunctionReturn(0);
  cerr = cudaMalloc(ptr, bytes);
  if (cerr == cudaErrorMemoryAllocation) {
    size_t free_bytes = 0, total_bytes = 0;
    int    device     = -1;

    *ptr = NULL;
    (void)cudaGetLastError();
    if (cudaMemGetInfo(&free_bytes, &total_bytes) != cudaSuccess || cudaGetDevice(&device) != cudaSuccess) (void)cudaGetLastError();
    SETERRQ(PETSC_COMM_SELF, PETSC_ERR_MEM, "Cannot allocate %s on the GPU: %zu bytes (%.1f MiB) requested, %.1f MiB free of %.1f MiB on device %d", what, bytes, bytes / 1048576.0, free_bytes / 1048576.0, total_bytes / 1048576.0, device);
  }
  BenchCallCUDA(cerr);
  PetscFunctionReturn(0);
}

PetscErrorCode BenchCUDAFree(void *ptr)
{
  PetscFunctionBegin;
  if (ptr) BenchCallCUDA(cudaFree(ptr));
  PetscFunctionReturn(0);
}

static PetscErrorCode BenchCUDACopy(void *dst, const void *src, size_t bytes, cudaMemcpyKind kind)
{
  cudaStream_t stream = NULL;

  PetscFunctionBegin;
  if (!bytes) PetscFunctionReturn(0);
  PetscCall(BenchCUDAStream(&stream));
  BenchCallCUDA(cudaMemcpyAsync(dst, src, bytes, kind, stream));
  BenchCallCUDA(cudaStreamSynchronize(stream));
  PetscFunctionReturn(0);
}

PetscErrorCode BenchCUDACopyToDevice(void *dst, const void *src, size_t bytes)
{
  PetscFunctionBegin;
  PetscCall(BenchCUDACopy(dst, src, bytes, cudaMemcpyHostToDevice));
  PetscFunctionReturn(0);
}

PetscErrorCode BenchCUDACopyToHost(void *dst, const void *src, size_t bytes)
{
  PetscFunctionBegin;
  PetscCall(BenchCUDACopy(dst, src, bytes, cudaMemcpyDeviceToHost));
  PetscFunctionReturn(0);
}

PetscErrorCode BenchCUDAMemset(void *dst, int value, size_t bytes)
{
  cudaStream_t stream = NULL;

  PetscFunctionBegin;
  if (!bytes) PetscFunctionReturn(0);
  PetscCall(BenchCUDAStream(&stream));
  BenchCallCUDA(cudaMemsetAsync(dst, value, bytes, stream));
  PetscFunctionReturn(0);
}

PetscErrorCode BenchCUDASynchronize(void)
{
  cudaStream_t stream = NULL;

  PetscFunctionBegin;
  PetscCall(BenchCUDAStream(&stream));
  BenchCallCUDA(cudaStreamSynchronize(stream));
  PetscFunctionReturn(0);
}

/* ------------------------------------------------------------------------ */
/* host CSR matrices and reference products */
PetscErrorCode BenchCSRFree(BenchCSR *A)
{
  PetscFunctionBegin;
  PetscCall(PetscFree(A->rowptr));
  PetscCall(PetscFree(A->colidx));
  PetscCall(PetscFree(A->vals));
  PetscFunctionReturn(0);
}

PetscErrorCode BenchCSRRandom(PetscInt nrows, PetscInt ncols, PetscInt maxlen, unsigned long long seed, BenchCSR *A)
{
  unsigned long long state = seed;
  PetscInt           nnz   = 0;

  PetscFunctionBegin;
  if (maxlen > ncols) maxlen = ncols;
  A->nrows = nrows;
  A->ncols = ncols;
  PetscCall(PetscMalloc1(nrows + 1, &A->rowptr));
  PetscCall(PetscMalloc1((size_t)nrows * maxlen + 1, &A->colidx));
  PetscCall(PetscMalloc1((size_t)nrows * maxlen + 1, &A->vals));
  A->rowptr[0] = 0;
  for (PetscInt i = 0; i < nrows; i++) {
    PetscInt want = i % 5 == 4 ? 0 : (PetscInt)(MatGenRandom(&state) % (unsigned long long)(maxlen + 1));

    for (PetscInt j = 0; j < ncols && want > 0; j++) /* selection sampling: keeps j with probability want/(ncols-j) */
      if (MatGenRandom(&state) % (unsigned long long)(ncols - j) < (unsigned long long)want) {
        A->colidx[nnz] = j;
        A->vals[nnz++] = MatGenUniform(&state);
        want--;
      }
    A->rowptr[i + 1] = nnz;
  }
  PetscFunctionReturn(0);
}

void BenchCSRMult(const BenchCSR *A, const double *x, const double *y0, double *y, double *absy)
{
  for (PetscInt i = 0; i < A->nrows; i++) {
    double s = y0 ? y0[i] : 0.0, a = y0 ? fabs(y0[i]) : 0.0;

    for (PetscInt k = A->rowptr[i]; k < A->rowptr[i + 1]; k++) {
      s += A->vals[k] * x[A->colidx[k]];
      a += fabs(A->vals[k] * x[A->colidx[k]]);
    }
    y[i]    = s;
    absy[i] = a;
  }
}

void BenchCSRMultTranspose(const BenchCSR *A, const double *x, const double *y0, double *y, double *absy)
{
  for (PetscInt j = 0; j < A->ncols; j++) {
    y[j]    = y0 ? y0[j] : 0.0;
    absy[j] = y0 ? fabs(y0[j]) : 0.0;
  }
  for (PetscInt i = 0; i < A->nrows; i++)
    for (PetscInt k = A->rowptr[i]; k < A->rowptr[i + 1]; k++) {
      y[A->colidx[k]] += A->vals[k] * x[i];
      absy[A->colidx[k]] += fabs(A->vals[k] * x[i]);
    }
}

double BenchMaxRelError(PetscInt n, const double *y, const double *ref, const double *absref)
{
  double worst = 0.0;

  for (PetscInt i = 0; i < n; i++) {
    const double diff = fabs(y[i] - ref[i]);
    double       rel  = absref[i] > 0 ? diff / absref[i] : (diff > 0 ? INFINITY : 0.0);

    if (isnan(rel)) rel = INFINITY; /* NaN: an entry the kernel never wrote, or a padding slot it did not skip */
    if (rel > worst) worst = rel;
  }
  return worst;
}

void BenchFillX(PetscInt n, double *x)
{
  for (PetscInt j = 0; j < n; j++) x[j] = (double)(((unsigned long long)j * 2654435761ULL) % 2001ULL) / 1000.0 - 1.0;
}

void BenchFillBlock(PetscInt n, PetscInt k, double *B)
{
  unsigned long long state = 4242;

  for (size_t i = 0; i < (size_t)n * (size_t)k; i++) B[i] = MatGenUniform(&state);
}

double BenchCSRTrafficBytes(const BenchCSR *A, PetscInt k)
{
  return (double)A->rowptr[A->nrows] * 12.0 + (A->nrows + 1) * 4.0 + 8.0 * A->ncols * k + 8.0 * A->nrows * k;
}

/* ------------------------------------------------------------------------ */
/* timing */
__global__ void BenchSpin(unsigned long long ns)
{
  unsigned long long start, now;

  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
  do asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
  while (now - start < ns);
}

PetscErrorCode BenchTimerCreate(BenchTimer *timer)
{
  void *stream;

  PetscFunctionBegin;
  PetscCall(GpuMatsCUDAGetStream(&stream));
  timer->stream  = (cudaStream_t)stream;
  timer->spin_ns = BENCH_SPIN_NS;
  BenchCallCUDA(cudaEventCreate(&timer->start));
  BenchCallCUDA(cudaEventCreate(&timer->stop));
  PetscFunctionReturn(0);
}

PetscErrorCode BenchTimerDestroy(BenchTimer *timer)
{
  PetscFunctionBegin;
  BenchCallCUDA(cudaEventDestroy(timer->start));
  BenchCallCUDA(cudaEventDestroy(timer->stop));
  PetscFunctionReturn(0);
}

PetscErrorCode BenchTime(BenchTimer *timer, BenchRunFunction run, void *ctx, PetscInt warmup, PetscInt reps, double *ms_median, double *ms_min)
{
  PetscReal *ms;

  PetscFunctionBegin;
  PetscCall(PetscMalloc1(reps, &ms));
  for (PetscInt w = 0; w < warmup; w++) PetscCall(run(ctx));
  for (PetscInt r = 0; r < reps; r++) {
    float elapsed;

    BenchSpin<<<1, 1, 0, timer->stream>>>(timer->spin_ns);
    BenchCallCUDA(cudaGetLastError());
    BenchCallCUDA(cudaEventRecord(timer->start, timer->stream));
    PetscCall(run(ctx));
    BenchCallCUDA(cudaEventRecord(timer->stop, timer->stream));
    BenchCallCUDA(cudaEventSynchronize(timer->stop));
    BenchCallCUDA(cudaEventElapsedTime(&elapsed, timer->start, timer->stop));
    ms[r] = elapsed;
  }
  PetscCall(PetscSortReal(reps, ms));
  *ms_median = reps % 2 ? ms[reps / 2] : 0.5 * (ms[reps / 2 - 1] + ms[reps / 2]);
  *ms_min    = ms[0];
  PetscCall(PetscFree(ms));
  PetscFunctionReturn(0);
}

PetscErrorCode BenchRunError(BenchRunFunction run, void *ctx, double *y, PetscInt n, const double *ref, const double *absref, double *host_y, double *err)
{
  PetscFunctionBegin;
  PetscCall(BenchCUDAMemset(y, 0xff, (size_t)n * sizeof(double))); /* NaN wherever the kernel does not write */
  PetscCall(run(ctx));
  PetscCall(BenchCUDACopyToHost(host_y, y, (size_t)n * sizeof(double)));
  *err = BenchMaxRelError(n, host_y, ref, absref);
  PetscFunctionReturn(0);
}

PetscErrorCode BenchPrintDevice(void)
{
  int            device;
  cudaDeviceProp prop;

  PetscFunctionBegin;
  BenchCallCUDA(cudaGetDevice(&device));
  BenchCallCUDA(cudaGetDeviceProperties(&prop, device));
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "Device %d: %s, %d SMs, %.1f GiB; PETSc %s CUDA\n", device, prop.name, prop.multiProcessorCount, prop.totalGlobalMem / 1073741824.0,
#if defined(PETSC_HAVE_CUDA)
                        "with"
#else
                        "without"
#endif
                        ));
  PetscFunctionReturn(0);
}

/* ------------------------------------------------------------------------ */
/* bandwidth */
__global__ void BenchFillArray(double2 *a, size_t n2)
{
  for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n2; i += (size_t)gridDim.x * blockDim.x) a[i] = make_double2((double)(i & 1023), 1.0);
}

/* Sums a large array: 4 independent 16-byte loads in flight per thread. */
__global__ void BenchReadArray(const double2 *__restrict__ a, size_t n2, double *result)
{
  const size_t stride = (size_t)gridDim.x * blockDim.x;
  size_t       i      = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  double       s0 = 0, s1 = 0, s2 = 0, s3 = 0;

  for (; i + 3 * stride < n2; i += 4 * stride) {
    const double2 v0 = a[i], v1 = a[i + stride], v2 = a[i + 2 * stride], v3 = a[i + 3 * stride];
    s0 += v0.x + v0.y;
    s1 += v1.x + v1.y;
    s2 += v2.x + v2.y;
    s3 += v3.x + v3.y;
  }
  for (; i < n2; i += stride) s0 += a[i].x + a[i].y;
  s0 += s1 + s2 + s3;
  for (int offset = 16; offset > 0; offset /= 2) s0 += __shfl_down_sync(0xffffffffu, s0, offset);
  if (threadIdx.x % 32 == 0) atomicAdd(result, s0);
}

typedef struct {
  cudaStream_t stream;
  double      *array, *result;
  size_t       bytes;
  int          blocks; /* of the read kernel: every SM full */
} BenchBandwidthRun;

static PetscErrorCode BenchRunRead(void *ctx)
{
  BenchBandwidthRun *b = (BenchBandwidthRun *)ctx;

  PetscFunctionBegin;
  BenchReadArray<<<b->blocks, 256, 0, b->stream>>>((const double2 *)b->array, b->bytes / sizeof(double2), b->result);
  BenchCallCUDA(cudaGetLastError());
  PetscFunctionReturn(0);
}

static PetscErrorCode BenchRunCopy(void *ctx) /* half the array onto the other half */
{
  BenchBandwidthRun *b = (BenchBandwidthRun *)ctx;

  PetscFunctionBegin;
  BenchCallCUDA(cudaMemcpyAsync(b->array, (char *)b->array + b->bytes / 2, b->bytes / 2, cudaMemcpyDeviceToDevice, b->stream));
  PetscFunctionReturn(0);
}

PetscErrorCode BenchMeasureBandwidth(BenchTimer *timer, double gib, PetscInt reps, BenchBandwidth *bw)
{
  size_t            free_bytes, total_bytes;
  int               device, sms, blocks;
  BenchBandwidthRun b;

  PetscFunctionBegin;
  BenchCallCUDA(cudaMemGetInfo(&free_bytes, &total_bytes));
  BenchCallCUDA(cudaGetDevice(&device));
  BenchCallCUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  BenchCallCUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, BenchReadArray, 256, 0));
  b.stream = timer->stream;
  b.blocks = sms * blocks;
  b.bytes  = (size_t)(gib * 1073741824.0);
  if (b.bytes > free_bytes / 2) b.bytes = free_bytes / 2;
  b.bytes -= b.bytes % 4096;
  PetscCall(BenchCUDAMalloc((void **)&b.array, b.bytes, "the bandwidth-test array"));
  PetscCall(BenchCUDAMalloc((void **)&b.result, sizeof(double), "the bandwidth-test sum"));
  BenchFillArray<<<1024, 256, 0, b.stream>>>((double2 *)b.array, b.bytes / sizeof(double2));
  BenchCallCUDA(cudaGetLastError());
  PetscCall(BenchTime(timer, BenchRunRead, &b, 3, reps, &bw->read_ms, &bw->read_min));
  PetscCall(BenchTime(timer, BenchRunCopy, &b, 3, reps, &bw->copy_ms, &bw->copy_min));
  bw->bytes    = b.bytes;
  bw->read_gbs = BenchGBs((double)b.bytes, bw->read_ms);
  PetscCall(BenchCUDAFree(b.array));
  PetscCall(BenchCUDAFree(b.result));
  PetscFunctionReturn(0);
}

PetscErrorCode BenchPrintBandwidth(const BenchBandwidth *bw)
{
  PetscFunctionBegin;
  PetscCall(BenchPrintHeader("Device bandwidth (GB/s over bytes read, or read + written)", "lanes"));
  PetscCall(BenchPrintRow("read_bandwidth", "-", bw->read_ms, bw->read_min, bw->read_gbs, BenchPercentOfRead(bw->read_gbs, bw->read_gbs), -1));
  PetscCall(BenchPrintRow("copy_bandwidth", "-", bw->copy_ms, bw->copy_min, BenchGBs((double)bw->bytes, bw->copy_ms), BenchPercentOfRead(BenchGBs((double)bw->bytes, bw->copy_ms), bw->read_gbs), -1));
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "(array of %.2f GiB; %% column relative to the read bandwidth)\n", bw->bytes / 1073741824.0));
  PetscFunctionReturn(0);
}

/* ------------------------------------------------------------------------ */
/* report lines */
PetscErrorCode BenchPrintHeader(const char *title, const char *info_name)
{
  PetscFunctionBegin;
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "\n%s\n%-34s %5s %10s %10s %9s %7s %11s\n", title, "kernel", info_name, "ms_median", "ms_min", "GB/s", "%read", "max_rel_err"));
  PetscFunctionReturn(0);
}

PetscErrorCode BenchPrintRow(const char *kernel, const char *info, double ms_median, double ms_min, double gbs, double pct_read, double err)
{
  char err_text[32];

  PetscFunctionBegin;
  BenchErrorText(err, err_text, sizeof(err_text));
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "%-34s %5s %10.4f %10.4f %9.1f %7.1f %11s%s\n", kernel, info, ms_median, ms_min, gbs, pct_read, err_text, err > BENCH_TOLERANCE ? "  FAILED" : ""));
  PetscFunctionReturn(0);
}

double BenchGBs(double bytes, double ms)
{
  return bytes / (ms * 1e-3) / 1e9;
}

double BenchPercentOfRead(double gbs, double read_gbs)
{
  return read_gbs > 0 ? 100.0 * gbs / read_gbs : 100.0;
}

void BenchErrorText(double err, char *text, size_t len)
{
  if (err >= 0) snprintf(text, len, "%.2e", err);
  else snprintf(text, len, "-");
}

/* ------------------------------------------------------------------------ */
/* cuSPARSE */
PetscErrorCode BenchCUSPARSECreate(const BenchCSR *A, cudaStream_t stream, double *x, double *y, BenchCUSPARSE *cs)
{
  const cusparseIndexType_t itype = sizeof(PetscInt) == 8 ? CUSPARSE_INDEX_64I : CUSPARSE_INDEX_32I;
  const double              one = 1.0, zero = 0.0;
  const cusparseSpMVAlg_t   algs[2] = {CUSPARSE_SPMV_CSR_ALG1, CUSPARSE_SPMV_CSR_ALG2};
  const PetscInt            nnz     = A->rowptr[A->nrows];

  PetscFunctionBegin;
  PetscCall(PetscMemzero(cs, sizeof(*cs)));
  PetscCall(BenchCUDAMalloc((void **)&cs->rowptr, (size_t)(A->nrows + 1) * sizeof(PetscInt), "the cuSPARSE row pointers"));
  PetscCall(BenchCUDAMalloc((void **)&cs->colidx, (size_t)nnz * sizeof(PetscInt), "the cuSPARSE column indices"));
  PetscCall(BenchCUDAMalloc((void **)&cs->vals, (size_t)nnz * sizeof(double), "the cuSPARSE values"));
  PetscCall(BenchCUDACopyToDevice(cs->rowptr, A->rowptr, (size_t)(A->nrows + 1) * sizeof(PetscInt)));
  PetscCall(BenchCUDACopyToDevice(cs->colidx, A->colidx, (size_t)nnz * sizeof(PetscInt)));
  PetscCall(BenchCUDACopyToDevice(cs->vals, A->vals, (size_t)nnz * sizeof(double)));
  BenchCallCUSPARSE(cusparseCreate(&cs->handle));
  BenchCallCUSPARSE(cusparseSetStream(cs->handle, stream));
  BenchCallCUSPARSE(cusparseCreateCsr(&cs->mat, A->nrows, A->ncols, nnz, cs->rowptr, cs->colidx, cs->vals, itype, itype, CUSPARSE_INDEX_BASE_ZERO, CUDA_R_64F));
  BenchCallCUSPARSE(cusparseCreateDnVec(&cs->vec_x, A->ncols, x, CUDA_R_64F));
  BenchCallCUSPARSE(cusparseCreateDnVec(&cs->vec_y, A->nrows, y, CUDA_R_64F));
  for (int a = 0; a < 2; a++) {
    size_t bytes;

    BenchCallCUSPARSE(cusparseSpMV_bufferSize(cs->handle, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, cs->mat, cs->vec_x, &zero, cs->vec_y, CUDA_R_64F, algs[a], &bytes));
    PetscCall(BenchCUDAMalloc(&cs->buffer[a], bytes, "the cuSPARSE SpMV buffer"));
  }
  PetscFunctionReturn(0);
}

PetscErrorCode BenchCUSPARSESetUpTranspose(BenchCUSPARSE *cs, const BenchCSR *A, double *xt, double *yt)
{
  const double one = 1.0, zero = 0.0;
  size_t       bytes;

  PetscFunctionBegin;
  BenchCallCUSPARSE(cusparseCreateDnVec(&cs->vec_xt, A->nrows, xt, CUDA_R_64F));
  BenchCallCUSPARSE(cusparseCreateDnVec(&cs->vec_yt, A->ncols, yt, CUDA_R_64F));
  BenchCallCUSPARSE(cusparseSpMV_bufferSize(cs->handle, CUSPARSE_OPERATION_TRANSPOSE, &one, cs->mat, cs->vec_xt, &zero, cs->vec_yt, CUDA_R_64F, CUSPARSE_SPMV_ALG_DEFAULT, &bytes));
  PetscCall(BenchCUDAMalloc(&cs->buffer_transpose, bytes, "the cuSPARSE transposed SpMV buffer"));
  PetscFunctionReturn(0);
}

PetscErrorCode BenchCUSPARSEMult(BenchCUSPARSE *cs, cusparseSpMVAlg_t alg)
{
  const double one = 1.0, zero = 0.0;

  PetscFunctionBegin;
  PetscCheck(alg == CUSPARSE_SPMV_CSR_ALG1 || alg == CUSPARSE_SPMV_CSR_ALG2, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "BenchCUSPARSEMult runs CUSPARSE_SPMV_CSR_ALG1 or ALG2, not algorithm %d", (int)alg);
  BenchCallCUSPARSE(cusparseSpMV(cs->handle, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, cs->mat, cs->vec_x, &zero, cs->vec_y, CUDA_R_64F, alg, cs->buffer[alg == CUSPARSE_SPMV_CSR_ALG1 ? 0 : 1]));
  PetscFunctionReturn(0);
}

PetscErrorCode BenchCUSPARSEMultTranspose(BenchCUSPARSE *cs)
{
  const double one = 1.0, zero = 0.0;

  PetscFunctionBegin;
  PetscCheck(cs->vec_xt, PETSC_COMM_SELF, PETSC_ERR_ORDER, "Call BenchCUSPARSESetUpTranspose before BenchCUSPARSEMultTranspose");
  BenchCallCUSPARSE(cusparseSpMV(cs->handle, CUSPARSE_OPERATION_TRANSPOSE, &one, cs->mat, cs->vec_xt, &zero, cs->vec_yt, CUDA_R_64F, CUSPARSE_SPMV_ALG_DEFAULT, cs->buffer_transpose));
  PetscFunctionReturn(0);
}

PetscErrorCode BenchCUSPARSEDestroy(BenchCUSPARSE *cs)
{
  PetscFunctionBegin;
  if (cs->vec_x) BenchCallCUSPARSE(cusparseDestroyDnVec(cs->vec_x));
  if (cs->vec_y) BenchCallCUSPARSE(cusparseDestroyDnVec(cs->vec_y));
  if (cs->vec_xt) BenchCallCUSPARSE(cusparseDestroyDnVec(cs->vec_xt));
  if (cs->vec_yt) BenchCallCUSPARSE(cusparseDestroyDnVec(cs->vec_yt));
  if (cs->mat) BenchCallCUSPARSE(cusparseDestroySpMat(cs->mat));
  if (cs->handle) BenchCallCUSPARSE(cusparseDestroy(cs->handle));
  for (int a = 0; a < 2; a++) PetscCall(BenchCUDAFree(cs->buffer[a]));
  PetscCall(BenchCUDAFree(cs->buffer_transpose));
  PetscCall(BenchCUDAFree(cs->rowptr));
  PetscCall(BenchCUDAFree(cs->colidx));
  PetscCall(BenchCUDAFree(cs->vals));
  PetscCall(PetscMemzero(cs, sizeof(*cs)));
  PetscFunctionReturn(0);
}

/* ------------------------------------------------------------------------ */
#if defined(PETSC_HAVE_CUDA)
PetscErrorCode BenchPETScCreate(const BenchCSR *A, const double *x, BenchPETSc *p)
{
  PetscFunctionBegin;
  PetscCall(BenchPETScCreateType(A, x, MATSEQAIJCUSPARSE, p));
  PetscFunctionReturn(0);
}

PetscErrorCode BenchPETScCreateType(const BenchCSR *A, const double *x, MatType type, BenchPETSc *p)
{
  PetscScalar *px;

  PetscFunctionBegin;
  PetscCall(MatCreate(PETSC_COMM_SELF, &p->A));
  PetscCall(MatSetSizes(p->A, A->nrows, A->ncols, A->nrows, A->ncols));
  PetscCall(MatSetType(p->A, MATSEQAIJ));
  PetscCall(MatSeqAIJSetPreallocationCSR(p->A, A->rowptr, A->colidx, A->vals));
  PetscCall(MatConvert(p->A, type, MAT_INPLACE_MATRIX, &p->A));
  PetscCall(MatCreateVecs(p->A, &p->x, &p->y));
  PetscCall(VecGetArrayWrite(p->x, &px));
  PetscCall(PetscArraycpy(px, x, A->ncols));
  PetscCall(VecRestoreArrayWrite(p->x, &px));
  PetscFunctionReturn(0);
}

PetscErrorCode BenchPETScMult(BenchPETSc *p)
{
  PetscFunctionBegin;
  PetscCall(MatMult(p->A, p->x, p->y));
  PetscFunctionReturn(0);
}

PetscErrorCode BenchPETScMultError(BenchPETSc *p, const double *ref, const double *absref, double *host_y, double *err)
{
  const PetscScalar *py;
  PetscInt           n;

  PetscFunctionBegin;
  PetscCall(VecGetLocalSize(p->y, &n));
  PetscCall(VecSet(p->y, NAN));
  PetscCall(MatMult(p->A, p->x, p->y));
  PetscCall(VecGetArrayRead(p->y, &py));
  PetscCall(PetscArraycpy(host_y, py, n));
  PetscCall(VecRestoreArrayRead(p->y, &py));
  *err = BenchMaxRelError(n, host_y, ref, absref);
  PetscFunctionReturn(0);
}

PetscErrorCode BenchPETScDestroy(BenchPETSc *p)
{
  PetscFunctionBegin;
  PetscCall(MatDestroy(&p->A));
  PetscCall(VecDestroy(&p->x));
  PetscCall(VecDestroy(&p->y));
  PetscFunctionReturn(0);
}
#endif

int BenchMainOneRank(int argc, char **argv, const char *help, const char *name, PetscErrorCode (*run)(PetscBool *failed))
{
  PetscBool   failed = PETSC_FALSE;
  PetscMPIInt size;

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  PetscCheck(size == 1, PETSC_COMM_WORLD, PETSC_ERR_SUP, "%s runs on one MPI rank", name);
  PetscCall((*run)(&failed));
  PetscCall(PetscFinalize());
  return failed ? 1 : 0;
}
