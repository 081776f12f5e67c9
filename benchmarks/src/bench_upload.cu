/* How fast can a host array of a matrix reach the device on this machine?  The first product of
   pcsr and cihybrid (issue 20) uploads the AIJ master's columns and values (342 MB for the 7-point
   160^3 operator), as aijcusparse's does; this times the ways to do it, each on the same touched,
   pageable host array (malloc), CUDA events and host clocks, median of -reps runs after one untimed:

     pageable      one cudaMemcpy from the pageable array (what aijcusparse does)
     register      cudaHostRegister of the whole array, one copy, cudaHostUnregister
     register_N    registered and copied in chunks of N MB, each chunk's copy queued as soon as it
                   is registered (registration of the next overlaps the copy of this one)
     staged_T      a 2 x 8 MB pinned staging buffer allocated once: T host threads memcpy a chunk
                   into one half while the other half is copied to the device
     pinned        the copy alone from an array allocated with cudaMallocHost (what a pinned AIJ
                   master would cost at each upload), and the cudaMallocHost itself

   and the host's own memcpy rate with 1..T threads.  Plain CUDA and std::thread, no PETSc.
   Options: -mb <342> -reps <5> -threads <8>. */
#include <cuda_runtime.h>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#define CHECK(call) \
  do { \
    cudaError_t e_ = (call); \
    if (e_ != cudaSuccess) { \
      fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e_)); \
      exit(1); \
    } \
  } while (0)

static double Now(void)
{
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

static double Median(std::vector<double> v)
{
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

/* dst[0, n) = src[0, n) by t threads, each a contiguous part */
static void ParallelCopy(char *dst, const char *src, size_t n, int t)
{
  std::vector<std::thread> th;
  const size_t             part = (n + t - 1) / t;

  for (int k = 0; k < t; k++) {
    const size_t a = std::min(n, k * part), b = std::min(n, a + part);
    if (b > a) th.emplace_back([=] { memcpy(dst + a, src + a, b - a); });
  }
  for (auto &x : th) x.join();
}

static void Report(const char *way, size_t bytes, const std::vector<double> &s)
{
  const double m = Median(s);

  printf("%-14s %8.2f ms  %6.1f GB/s  (min %.2f, max %.2f ms)\n", way, m * 1e3, bytes / m / 1e9, *std::min_element(s.begin(), s.end()) * 1e3, *std::max_element(s.begin(), s.end()) * 1e3);
}

int main(int argc, char **argv)
{
  size_t       mb = 342;
  int          reps = 5, maxthreads = 8;
  cudaStream_t s;
  char        *host, *dev, *pinned, *stage[2];
  cudaEvent_t  done[2];

  for (int i = 1; i + 1 < argc; i += 2) {
    if (!strcmp(argv[i], "-mb")) mb = (size_t)atol(argv[i + 1]);
    else if (!strcmp(argv[i], "-reps")) reps = atoi(argv[i + 1]);
    else if (!strcmp(argv[i], "-threads")) maxthreads = atoi(argv[i + 1]);
  }
  const size_t bytes = mb << 20, half = (size_t)8 << 20;

  CHECK(cudaFree(0));
  CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  CHECK(cudaMalloc((void **)&dev, bytes));
  host = (char *)malloc(bytes);
  for (size_t i = 0; i < bytes; i++) host[i] = (char)i; /* touched, as an assembled AIJ's arrays are */
  printf("upload of %zu MB from a pageable host array, %d runs each (after one untimed)\n", mb, reps);

  { /* the host's own copy rate, into a touched destination */
    char *dst = (char *)malloc(bytes);

    memset(dst, 1, bytes);
    for (int t = 1; t <= maxthreads; t *= 2) {
      std::vector<double> v;
      for (int r = 0; r <= reps; r++) {
        const double t0 = Now();
        ParallelCopy(dst, host, bytes, t);
        if (r) v.push_back(Now() - t0);
      }
      Report(("memcpy_" + std::to_string(t)).c_str(), bytes, v);
    }
    free(dst);
  }
  { /* pageable */
    std::vector<double> v;
    for (int r = 0; r <= reps; r++) {
      const double t0 = Now();
      CHECK(cudaMemcpyAsync(dev, host, bytes, cudaMemcpyHostToDevice, s));
      CHECK(cudaStreamSynchronize(s));
      if (r) v.push_back(Now() - t0);
    }
    Report("pageable", bytes, v);
  }
  { /* register the whole array */
    std::vector<double> v, vr, vu;
    for (int r = 0; r <= reps; r++) {
      const double t0 = Now();
      CHECK(cudaHostRegister(host, bytes, cudaHostRegisterDefault));
      const double t1 = Now();
      CHECK(cudaMemcpyAsync(dev, host, bytes, cudaMemcpyHostToDevice, s));
      CHECK(cudaStreamSynchronize(s));
      const double t2 = Now();
      CHECK(cudaHostUnregister(host));
      if (r) v.push_back(Now() - t0), vr.push_back(t1 - t0), vu.push_back(Now() - t2);
    }
    Report("register", bytes, v);
    printf("  of which registering %.2f ms, unregistering %.2f ms\n", Median(vr) * 1e3, Median(vu) * 1e3);
  }
  for (size_t cmb : {16, 64}) { /* register in chunks, copies queued behind */
    const size_t        chunk = cmb << 20;
    std::vector<double> v;
    for (int r = 0; r <= reps; r++) {
      const double t0 = Now();
      for (size_t at = 0; at < bytes; at += chunk) {
        const size_t n = std::min(chunk, bytes - at);
        CHECK(cudaHostRegister(host + at, n, cudaHostRegisterDefault));
        CHECK(cudaMemcpyAsync(dev + at, host + at, n, cudaMemcpyHostToDevice, s));
      }
      CHECK(cudaStreamSynchronize(s));
      for (size_t at = 0; at < bytes; at += chunk) CHECK(cudaHostUnregister(host + at));
      if (r) v.push_back(Now() - t0);
    }
    Report(("register_" + std::to_string(cmb)).c_str(), bytes, v);
  }
  { /* staged through 2 x 8 MB pinned, T threads filling */
    const double t0 = Now();
    CHECK(cudaMallocHost((void **)&stage[0], 2 * half));
    printf("cudaMallocHost of the 16 MB staging buffer: %.2f ms\n", (Now() - t0) * 1e3);
    stage[1] = stage[0] + half;
    CHECK(cudaEventCreateWithFlags(&done[0], cudaEventDisableTiming));
    CHECK(cudaEventCreateWithFlags(&done[1], cudaEventDisableTiming));
    for (int t = 1; t <= maxthreads; t *= 2) {
      std::vector<double> v;
      for (int r = 0; r <= reps; r++) {
        const double t1 = Now();
        int          k  = 0;
        for (size_t at = 0; at < bytes; at += half, k ^= 1) {
          const size_t n = std::min(half, bytes - at);
          if (at >= 2 * half) CHECK(cudaEventSynchronize(done[k])); /* this half's last copy is done */
          ParallelCopy(stage[k], host + at, n, t);
          CHECK(cudaMemcpyAsync(dev + at, stage[k], n, cudaMemcpyHostToDevice, s));
          CHECK(cudaEventRecord(done[k], s));
        }
        CHECK(cudaStreamSynchronize(s));
        if (r) v.push_back(Now() - t1);
      }
      Report(("staged_" + std::to_string(t)).c_str(), bytes, v);
    }
    CHECK(cudaFreeHost(stage[0]));
  }
  { /* a pinned master: its allocation, then each upload */
    std::vector<double> v;
    const double        t0 = Now();
    CHECK(cudaMallocHost((void **)&pinned, bytes));
    const double t1 = Now();
    memcpy(pinned, host, bytes);
    const double t2 = Now();
    printf("cudaMallocHost of %zu MB: %.2f ms, first memcpy into it %.2f ms\n", mb, (t1 - t0) * 1e3, (t2 - t1) * 1e3);
    for (int r = 0; r <= reps; r++) {
      const double t3 = Now();
      CHECK(cudaMemcpyAsync(dev, pinned, bytes, cudaMemcpyHostToDevice, s));
      CHECK(cudaStreamSynchronize(s));
      if (r) v.push_back(Now() - t3);
    }
    Report("pinned", bytes, v);
    CHECK(cudaFreeHost(pinned));
  }
  { /* and what a cudaMalloc of the device array costs */
    char        *d2;
    const double t0 = Now();
    CHECK(cudaMalloc((void **)&d2, bytes));
    const double t1 = Now();
    CHECK(cudaFree(d2));
    printf("cudaMalloc of %zu MB: %.2f ms, cudaFree %.2f ms\n", mb, (t1 - t0) * 1e3, (Now() - t1) * 1e3);
  }
  CHECK(cudaFree(dev));
  free(host);
  return 0;
}
