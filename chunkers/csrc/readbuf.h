/* Read buffers of the stream driver (bufpool.pyx, ReadBuffer): zero-filled
 * memory that the driver reads files into and yields chunks as views of.
 *
 * Page-aligned, because the kernel's copy from the page cache into them is: on
 * the AMD EPYC Zen 4 VM, read(2) of a file on /dev/shm ran at about 2 GB/s
 * into a buffer starting 1 to 31 bytes into its page, at 6-7 GB/s at 0 or 32
 * and more (4K aliasing: each load of the copy waits on a store that only
 * seems to overlap it). A calloc'd buffer of this size starts 16 bytes into its
 * page (glibc's chunk header), so every read into a stream's first buffer ran
 * at the slow rate: 1 MiB files by descriptor 1543-1587 -> 3223-3308 MB/s.
 * (Transparent huge pages on top measured no faster: not used.) */
#ifndef CHUNKERS_READBUF_H
#define CHUNKERS_READBUF_H

#include <stddef.h>
#include <stdint.h>

/* A zero-filled, page-aligned buffer of size > 0 bytes, or NULL (errno set) when
 * there is no memory. Under AddressSanitizer it is calloc'd instead (not
 * page-aligned), so its redzones check the driver's indices. */
uint8_t *ck_readbuf_alloc(size_t size);

/* Give back a buffer of ck_readbuf_alloc(size). */
void ck_readbuf_free(uint8_t *data, size_t size);

#endif
