/* The chunking driver: where does the next chunk end? (spec 01 §5, 03 §6)
 *
 * Inverted control: the caller owns the bytes and the reading; the driver
 * owns the scan position and hash state of the chunk in progress, so every
 * byte is scanned once however the input arrives (spec 01 §7). */
#ifndef CHUNKERS_DRIVER_H
#define CHUNKERS_DRIVER_H

#include <stddef.h>
#include <stdint.h>

typedef struct {
    size_t min_size, max_size;
    size_t normal_size;     /* strict mask while the tested offset is below it (nc > 0 only) */
    uint64_t mask_s, mask_l;
    int nc;                 /* normalized chunking on (nc_level > 0) */
    size_t window;          /* windowed (test-then-roll) chunkers: w >= 1; window-less: 0 */
} ck_params;

/* The chunker family's hooks. ctx is passed back unchanged. */
typedef struct {
    const void *ctx;
    /* Window-less: the state before the byte at offset min_size of the chunk
     * starting at p (fastcdc: 0; AES: digest of p[min_size-64 .. min_size-1]). */
    uint64_t (*restart)(const void *ctx, const uint8_t *chunk, size_t min_size);
    /* Window-less scan contract of spec 01 §5.1; -2 = backend failure. */
    int64_t (*scan)(const void *ctx, const uint8_t *p, size_t n, uint64_t *st, uint64_t mask);
    /* Windowed: hash of the w bytes at win. */
    uint64_t (*window_hash)(const void *ctx, const uint8_t *win);
    /* Windowed scan contract of spec 03 §5 (returns the steps made). */
    size_t (*roll_scan)(const void *ctx, const uint8_t *pr, const uint8_t *pa, size_t n, uint64_t *st,
                        uint64_t mask);
    /* The registry name of the kernel that last ran in this thread, cleared
     * (ck_provenance_take of the family's extension; NULL: no scan kernels). */
    const char *(*provenance)(void);
    /* The source file of the code that recorded that name (ck_provenance_source; NULL with provenance). */
    const char *(*provenance_source)(void);
} ck_scanner;

typedef struct {
    size_t off;     /* chunk offset of the next position to feed (window-less) or test (windowed) */
    uint64_t st;
    int started;    /* the min_size skip and restart have been done */
} ck_cursor;

#define CK_NEED_MORE ((size_t)0)
#define CK_SCAN_FAILED ((size_t)-1)

/* Length of the chunk that starts at p, given the avail bytes p[0 .. avail-1]
 * and eof (no byte follows them). Returns CK_NEED_MORE when the cut depends
 * on bytes not yet available (never when eof or avail >= max_size), and
 * CK_SCAN_FAILED when the scan hook reported -2. On NEED_MORE the cursor keeps
 * the scan position; the caller must present the same chunk start again with
 * more bytes. On a cut it is reset for the next chunk. eof with avail == 0
 * returns CK_NEED_MORE too: there is no chunk. */
size_t ck_next_cut(const ck_params *prm, const ck_scanner *sc, ck_cursor *cur, const uint8_t *p, size_t avail,
                   int eof);

/* 1 if all n bytes at p are zero (n == 0 gives 1). */
int ck_all_zero(const uint8_t *p, size_t n);

#endif
