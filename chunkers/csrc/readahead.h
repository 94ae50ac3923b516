/* Read-ahead for the stream driver: one background thread fills the free part
 * of the read buffer from a regular file, a piece at a time, while the caller
 * scans the bytes before it, so a file is chunked in about the larger of its
 * read and scan times, not their sum (issue 13, item 3), and the scan never
 * waits for a read while the buffer has room (issue 33, item 1). One fill is
 * in progress at most; the caller owns the buffer and must not touch the part
 * of dst the fill has not reported (ck_readahead_wait) until the fill ended.
 * The fixed chunker's HalvesReader (driver.pyx) uses the same thread to read
 * the second half of a large block while the caller preads the first. */
#ifndef CHUNKERS_READAHEAD_H
#define CHUNKERS_READAHEAD_H

#include <stddef.h>
#include <stdint.h>

typedef struct ck_readahead ck_readahead;

/* A reader of fd with its thread started, or NULL (errno set) if the thread,
 * a descriptor or memory cannot be had. The thread reads its own duplicate of
 * fd (same file and offset), so the caller may close fd at any time; it blocks
 * every signal: they go to the caller. */
ck_readahead *ck_readahead_start(int fd);

/* Start a fill of dst[0 .. n-1], n > 0: read(2)s of at most `piece` > 0 bytes
 * each, in order, until n bytes are read, a read returns 0 (end of file) or
 * fails. No fill may be in progress (the last one's end was reported). */
void ck_readahead_submit(ck_readahead *ra, uint8_t *dst, size_t n, size_t piece);

/* Wait until the fill has read more than `seen` bytes, or has ended. Returns
 * the bytes read so far (dst[0 .. result-1] are the caller's again), with
 * *ended set when the fill is over: then a result below n means that a read
 * returned 0 (end of file). When a read failed, the bytes before it are
 * reported first, then -errno (EINTR is retried), which ends the fill. */
ptrdiff_t ck_readahead_wait(ck_readahead *ra, size_t seen, int *ended);

/* Nonzero in the process that started ra; zero in a child forked since (told by
 * a fork count kept with pthread_atfork, as a pid can repeat), which has no
 * reader thread (and maybe a mutex locked by it): there ra must not be used. */
int ck_readahead_owned(const ck_readahead *ra);

/* End a fill in progress after its current read (the buffer stays the caller's
 * until then), stop and join the thread, close the duplicate, free ra. In a
 * forked child only the duplicate is closed and ra freed (no thread there). */
void ck_readahead_stop(ck_readahead *ra);

#endif
