#ifndef TK_CSYSTEM_SHIM_H
#define TK_CSYSTEM_SHIM_H
/* glibc interfaces the Glibc Swift module leaves out. */
#include <malloc.h>
#endif
