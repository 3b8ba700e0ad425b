#ifndef TK_CCRYPTO_SHIM_H
#define TK_CCRYPTO_SHIM_H
/* OpenSSL's libcrypto (libssl-dev): SHA-256 of documents, sidecars and passages. It uses the
   CPU's SHA extensions where there are some (several times the speed of a portable loop, and a
   first index hashes every byte of a project more than once). */
#include <openssl/evp.h>
#endif
