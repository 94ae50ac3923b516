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
int ck_readbuf_alloc(ck_readbuf *b, size_t size)
{
    void *m = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED)
        return -1;
    b->data = m;
    b->len = size;
    return 0;
}

void ck_readbuf_free(ck_readbuf *b)
{
    munmap(b->data, b->len);
}
#else
int ck_readbuf_alloc(ck_readbuf *b, size_t size)
{
    b->data = calloc(size, 1);
    b->len = 0;
    return b->data ? 0 : -1;
}

void ck_readbuf_free(ck_readbuf *b)
{
    free(b->data);
}
#endif
