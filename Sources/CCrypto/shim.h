#ifndef TK_CCRYPTO_SHIM_H
#define TK_CCRYPTO_SHIM_H
/* OpenSSL's libcrypto (libssl-dev): SHA-256 of documents, sidecars and passages. It uses the
   CPU's SHA extensions where there are some (several times the speed of a portable loop, and a
   first index hashes every byte of a project more than once).

   Through SHA256_Init/Update/Final, which OpenSSL 3 marks deprecated in favour of EVP: the EVP
   route fetches the algorithm from a provider first, and the first fetch in a process builds
   OpenSSL's provider and method stores (1.2 ms, 5.4M instructions: a tenth of a `check` of a
   short file), while these run the same assembly (the same digests, at the same speed) at once. */
#define OPENSSL_SUPPRESS_DEPRECATED
#include <openssl/sha.h>
#include <stddef.h>

/* The SHA-256 digest of `count` bytes at `data` (which may be null when `count` is 0) into the 32
   bytes at `out`; 0 when libcrypto fails, which it does only when broken. */
static inline int tk_sha256(const void *_Nullable data, size_t count, unsigned char *_Nonnull out) {
    static const unsigned char none = 0;
    SHA256_CTX c;
    if (SHA256_Init(&c) != 1) return 0;
    if (SHA256_Update(&c, count > 0 && data ? data : &none, count) != 1) return 0;
    return SHA256_Final(out, &c);
}
#endif
