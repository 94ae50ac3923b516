/* Build shim for borg 2.0.0b25 against OpenSSL 3.0 (Debian 12), used only by
 * ci/borg-reference.sh through CPPFLAGS=-I ci/borg-shim: borg's crypto
 * extension includes <openssl/thread.h> and names the Argon2 KDF parameters,
 * both new in OpenSSL 3.2. The chunkers need none of it. With this shim the
 * extension builds; Argon2 key derivation then fails at run time on 3.0
 * (OSSL_set_max_threads reports failure, EVP_KDF_fetch finds no ARGON2),
 * which the chunker checks never reach. On OpenSSL >= 3.2 the real header
 * is found first only if the shim is not on the include path: the script
 * adds it only when the installed libcrypto is older than 3.2. */
#ifndef CHUNKERS_BORG_SHIM_OPENSSL_THREAD_H
#define CHUNKERS_BORG_SHIM_OPENSSL_THREAD_H
#include <stdint.h>
#include <openssl/core_names.h>

#ifndef OSSL_KDF_PARAM_THREADS
#define OSSL_KDF_PARAM_THREADS "threads"
#endif
#ifndef OSSL_KDF_PARAM_ARGON2_LANES
#define OSSL_KDF_PARAM_ARGON2_LANES "lanes"
#endif
#ifndef OSSL_KDF_PARAM_ARGON2_MEMCOST
#define OSSL_KDF_PARAM_ARGON2_MEMCOST "memcost"
#endif

/* OpenSSL 3.0 has no thread pool: report failure, as 3.2 does without one. */
static inline int OSSL_set_max_threads(void *ctx, uint64_t max_threads)
{
    (void)ctx;
    (void)max_threads;
    return 0;
}
#endif
