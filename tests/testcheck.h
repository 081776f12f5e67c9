/* CHECK(cond, format, ...) for the tests of the plain-C format modules (no PETSc error codes):
   a failed condition is printed with its place and counted in 'failures', and the test goes on
   to report every failure; main returns failures != 0. */
#pragma once
#include <stdio.h>

static int failures = 0;

#define CHECK(cond, ...) \
  do { \
    if (!(cond)) { \
      failures++; \
      fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__); \
      fprintf(stderr, __VA_ARGS__); \
      fprintf(stderr, "\n"); \
    } \
  } while (0)
