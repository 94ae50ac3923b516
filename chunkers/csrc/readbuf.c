/* Read buffers of the stream driver: see readbuf.h. */
#define _DEFAULT_SOURCE     /* MAP_ANONYMOUS under -std=c11 */
#include "readbuf.h"

#include <stdlib.h>
#include <sys/mman.h>

#if defined(__SANITIZE_ADDRESS__)
#define CK_READBUF_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define CK_READBUF_ASAN 1
#endif
#endif

#if defined(MAP_ANONYMOUS) && !defined(CK_READBUF_ASAN)
uint8_t *ck_readbuf_alloc(size_t size)
{
    void *m = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    return m == MAP_FAILED ? NULL : m;
}

void ck_readbuf_free(uint8_t *data, size_t size)
{
    munmap(data, size);
}
#else
uint8_t *ck_readbuf_alloc(size_t size)
{
    return calloc(size, 1);
}

void ck_readbuf_free(uint8_t *data, size_t size)
{
    (void)size;
    free(data);
}
#endif
