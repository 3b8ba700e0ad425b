#ifndef TK_CZLIB_SHIM_H
#define TK_CZLIB_SHIM_H
/* zlib (zlib1g-dev): compresses the snapshots of the version history. */
#include <zlib.h>
#endif
