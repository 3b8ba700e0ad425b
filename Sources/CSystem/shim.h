#ifndef TK_CSYSTEM_SHIM_H
#define TK_CSYSTEM_SHIM_H
/* glibc interfaces the Glibc Swift module leaves out. */
#include <malloc.h>
#include <stddef.h>
/* GNU memmem (string.h declares it only under _GNU_SOURCE): Vale's location search. */
extern void *memmem(const void *haystack, size_t haystacklen, const void *needle, size_t needlelen);
#endif
