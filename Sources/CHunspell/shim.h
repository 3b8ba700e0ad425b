#ifndef TK_CHUNSPELL_SHIM_H
#define TK_CHUNSPELL_SHIM_H
// Hunspell's C API (Debian: libhunspell-dev). A Hunhandle is not thread-safe: Swift guards each with a lock.
#include <hunspell/hunspell.h>
// malloc_trim: after Hunspell_destroy, hands the freed dictionary pages back to the system.
#include <malloc.h>
#endif
